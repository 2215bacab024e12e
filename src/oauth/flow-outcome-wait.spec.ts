import { LazyAbort } from '../runtime/lazy-abort';
import { awaitFlowOutcome, RECHECK_INTERVAL_MS, TAKEN_GRACE_MS } from './flow-outcome-wait';
import { MemoryOAuthWakeups } from './oauth-wakeups';
import { MemoryPendingOAuthFlows, type PendingFlow } from './pending-oauth-flows';

function aFlow(patch: Partial<PendingFlow> = {}): PendingFlow {
  const now = Date.now();
  return {
    state: `s-${Math.random().toString(36).slice(2)}`,
    executionId: 'e1',
    owner: 'user:u:calendar',
    ownerId: 'u',
    provider: 'calendar',
    providerUrl: 'http://127.0.0.1:9/authorize',
    createdAt: now,
    expiresAt: now + 60_000,
    ...patch,
  };
}

describe('waiting for an OAuth flow’s outcome', () => {
  it('an outcome settled before the waiter listened (its wake-up long gone) is read from the flow', async () => {
    const flows = new MemoryPendingOAuthFlows();
    const flow = aFlow();
    await flows.put(flow);
    await flows.take(flow.state);
    await flows.settle(flow.state, { ok: false, message: 'access_denied' });
    const outcome = await awaitFlowOutcome(flows, new MemoryOAuthWakeups(), flow, new LazyAbort(), 'timeout');
    expect(outcome).toEqual({ ok: false, message: 'access_denied' });
  });

  it('a wake-up ends the wait with its outcome', async () => {
    const flows = new MemoryPendingOAuthFlows();
    const wakeups = new MemoryOAuthWakeups();
    const flow = aFlow();
    await flows.put(flow);
    const waiting = awaitFlowOutcome(flows, wakeups, flow, new LazyAbort(), 'timeout');
    await new Promise((r) => setImmediate(r));
    await wakeups.publish(flow.state, { ok: true });
    expect(await waiting).toEqual({ ok: true });
  });

  it('at expiry the waiter fails the flow itself, once: a late callback finds it settled', async () => {
    const flows = new MemoryPendingOAuthFlows();
    const flow = aFlow({ expiresAt: Date.now() + 50 });
    await flows.put(flow);
    const outcome = await awaitFlowOutcome(
      flows,
      new MemoryOAuthWakeups(),
      flow,
      new LazyAbort(),
      'timed out',
    );
    expect(outcome).toEqual(new Error('timed out'));
    expect(await flows.take(flow.state)).toBeUndefined();
    expect((await flows.find(flow.state))?.outcome).toEqual({ ok: false, message: 'timed out' });
  });

  it('a cancel ends the wait with its reason, unless a callback already took the flow', async () => {
    const flows = new MemoryPendingOAuthFlows();
    const wakeups = new MemoryOAuthWakeups();
    const cancelled = aFlow();
    await flows.put(cancelled);
    const abort = new LazyAbort();
    const waiting = awaitFlowOutcome(flows, wakeups, cancelled, abort, 'timeout');
    abort.abort(new Error('Execution cancelled'));
    expect(await waiting).toEqual(new Error('Execution cancelled'));

    const taken = aFlow();
    await flows.put(taken);
    await flows.take(taken.state);
    const late = new LazyAbort();
    const stillWaiting = awaitFlowOutcome(flows, wakeups, taken, late, 'timeout');
    late.abort(new Error('Execution cancelled'));
    await new Promise((r) => setTimeout(r, 20));
    await flows.settle(taken.state, { ok: true });
    await wakeups.publish(taken.state, { ok: true });
    expect(await stillWaiting).toEqual({ ok: true });
  });

  describe('when a wake-up never comes', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] }));
    afterEach(() => jest.useRealTimers());

    it('a flow settled elsewhere whose wake-up was lost is read within the re-check interval', async () => {
      const flows = new MemoryPendingOAuthFlows();
      const flow = aFlow();
      await flows.put(flow);
      let outcome: unknown;
      void awaitFlowOutcome(flows, new MemoryOAuthWakeups(), flow, new LazyAbort(), 'timeout').then(
        (o) => (outcome = o),
      );
      await flows.take(flow.state);
      await flows.settle(flow.state, { ok: true });
      await jest.advanceTimersByTimeAsync(RECHECK_INTERVAL_MS - 1000);
      expect(outcome).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1000);
      expect(outcome).toEqual({ ok: true });
    });

    it('a callback that took the flow and died: the flow fails a grace period after its expiry', async () => {
      const flows = new MemoryPendingOAuthFlows();
      const flow = aFlow({ expiresAt: Date.now() + 1000 });
      await flows.put(flow);
      await flows.take(flow.state);
      let outcome: unknown;
      void awaitFlowOutcome(flows, new MemoryOAuthWakeups(), flow, new LazyAbort(), 'timeout').then(
        (o) => (outcome = o),
      );
      await jest.advanceTimersByTimeAsync(1000);
      expect(outcome).toBeUndefined();
      await jest.advanceTimersByTimeAsync(TAKEN_GRACE_MS);
      const failed = { ok: false, message: 'Authentication failed: the callback did not finish' };
      expect(outcome).toEqual(failed);
      expect((await flows.find(flow.state))?.outcome).toEqual(failed);
    });
  });
});
