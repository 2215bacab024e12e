import type { PendingFlow, PendingOAuthFlows } from './pending-oauth-flows';

function aFlow(patch: Partial<PendingFlow> = {}): PendingFlow {
  return {
    state: `s-${Math.random().toString(36).slice(2)}`,
    executionId: 'e1',
    owner: 'user:alice:calendar',
    ownerId: 'alice',
    provider: 'calendar',
    providerUrl: 'http://127.0.0.1:9/authorize?state=s',
    codeVerifier: 'v',
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
    ...patch,
  };
}

/** What every PendingOAuthFlows adapter must do; a spec per adapter calls this with a factory. */
export function pendingOAuthFlowsContract(
  name: string,
  makeFlows: () => Promise<PendingOAuthFlows> | PendingOAuthFlows,
  /** Adapters shared by several processes: the same flows as another process opens them. */
  makePeer?: () => Promise<PendingOAuthFlows>,
) {
  describe(`PendingOAuthFlows contract: ${name}`, () => {
    let flows: PendingOAuthFlows;
    beforeEach(async () => {
      flows = await makeFlows();
    });

    it('finds a flow by its state until it expires', async () => {
      const flow = aFlow();
      await flows.put(flow);
      expect(await flows.get(flow.state)).toEqual(flow);
      expect(await flows.get(flow.state, flow.expiresAt)).toBeUndefined();
      expect(await flows.get('unknown')).toBeUndefined();
    });

    it('binds a flow to the browser that opened it', async () => {
      const flow = aFlow();
      await flows.put(flow);
      expect(await flows.bind(flow.state, 'cookie-value')).toBe(true);
      expect((await flows.get(flow.state))?.binding).toBe('cookie-value');
      expect(await flows.bind('unknown', 'x')).toBe(false);
    });

    it('binds an anonymous flow only with the token of the confirmation page shown last, once', async () => {
      const flow = aFlow({ ownerId: null });
      await flows.put(flow);
      expect(await flows.prepare(flow.state, 'first-page')).toBe(true);
      expect(await flows.prepare(flow.state, 'second-page')).toBe(true);
      expect(await flows.confirm(flow.state, 'first-page', 'browser-1')).toBe(false);
      const confirmed = await Promise.all([
        flows.confirm(flow.state, 'second-page', 'browser-2'),
        flows.confirm(flow.state, 'second-page', 'browser-3'),
      ]);
      expect(confirmed.filter(Boolean)).toHaveLength(1);
      const bound = await flows.get(flow.state);
      expect(bound?.binding).toBe(confirmed[0] ? 'browser-2' : 'browser-3');
      expect(bound?.confirm).toBeUndefined();
      // Bound: no page is shown again, and no token confirms it.
      expect(await flows.prepare(flow.state, 'third-page')).toBe(false);
      expect(await flows.confirm(flow.state, 'third-page', 'browser-4')).toBe(false);
      expect(await flows.prepare('unknown', 'x')).toBe(false);
      expect(await flows.confirm('unknown', 'x', 'y')).toBe(false);
    });

    it('lets a flow be taken once: the first taker gets it, the others nothing', async () => {
      const flow = aFlow();
      await flows.put(flow);
      const taken = await Promise.all([flows.take(flow.state), flows.take(flow.state)]);
      expect(taken.filter(Boolean)).toEqual([flow]);
      expect(await flows.get(flow.state)).toBeUndefined();
      expect(await flows.bind(flow.state, 'late')).toBe(false);
      expect(await flows.find(flow.state)).toEqual({ ...flow, status: 'taken' });
    });

    it('records the outcome of a taken flow once; a pending or unknown flow cannot be settled', async () => {
      const flow = aFlow();
      await flows.put(flow);
      expect(await flows.settle(flow.state, { ok: true })).toBe(false);
      expect((await flows.find(flow.state))?.status).toBe('pending');
      await flows.take(flow.state);
      const settled = await Promise.all([
        flows.settle(flow.state, { ok: false, message: 'denied' }),
        flows.settle(flow.state, { ok: true }),
      ]);
      expect(settled.filter(Boolean)).toHaveLength(1);
      const found = await flows.find(flow.state);
      expect(found?.status).toBe('settled');
      expect(found?.outcome).toEqual(settled[0] ? { ok: false, message: 'denied' } : { ok: true });
      expect(await flows.take(flow.state)).toBeUndefined();
      expect(await flows.settle('unknown', { ok: true })).toBe(false);
      expect(await flows.find('unknown')).toBeUndefined();
    });

    it("lists an execution's flows for one provider, oldest first, whatever their status", async () => {
      const executionId = `e-${Math.random().toString(36).slice(2)}`;
      const first = aFlow({ executionId, createdAt: 1000 });
      const second = aFlow({ executionId, createdAt: 2000 });
      await flows.put(second);
      await flows.put(first);
      await flows.put(aFlow({ executionId, provider: 'mail' }));
      await flows.put(aFlow({ executionId: 'another' }));
      await flows.take(first.state);
      await flows.settle(first.state, { ok: true });
      expect(await flows.forExecution(executionId, 'calendar')).toEqual([
        { ...first, status: 'settled', outcome: { ok: true } },
        { ...second, status: 'pending' },
      ]);
      expect(await flows.forExecution(executionId, 'drive')).toEqual([]);
    });

    if (makePeer) {
      it('across processes: a flow put on one is found and bound on another, and taken by one taker only', async () => {
        const peers = [flows, await makePeer(), await makePeer()];
        const flow = aFlow();
        await flows.put(flow);
        expect(await peers[1].get(flow.state)).toEqual(flow);
        expect(await peers[2].bind(flow.state, 'browser')).toBe(true);
        expect((await flows.get(flow.state))?.binding).toBe('browser');
        const taken = await Promise.all(peers.flatMap((p) => [p.take(flow.state), p.take(flow.state)]));
        expect(taken.filter(Boolean)).toEqual([{ ...flow, binding: 'browser' }]);
        const settled = await Promise.all(
          peers.map((p, i) => p.settle(flow.state, { ok: false, message: `replica ${i}` })),
        );
        expect(settled.filter(Boolean)).toHaveLength(1);
        const outcome = (await peers[2].find(flow.state))?.outcome;
        expect(outcome).toEqual({ ok: false, message: `replica ${settled.indexOf(true)}` });
        expect(await peers[1].forExecution(flow.executionId, flow.provider)).toContainEqual({
          ...flow,
          binding: 'browser',
          status: 'settled',
          outcome,
        });
      });
    }
  });
}
