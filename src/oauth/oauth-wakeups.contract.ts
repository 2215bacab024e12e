import type { FlowOutcome } from './pending-oauth-flows';
import type { OAuthWakeups } from './oauth-wakeups';

const unique = () => `state-${Math.random().toString(36).slice(2)}`;

/** Resolves with the first outcome heard for `state`, or 'nothing' after `ms`. */
function heard(wakeups: OAuthWakeups, state: string, ms = 300): Promise<FlowOutcome | 'nothing'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop();
      resolve('nothing');
    }, ms);
    const stop = wakeups.listen(state, (outcome) => {
      clearTimeout(timer);
      resolve(outcome);
    });
  });
}

/** What every OAuthWakeups adapter must do; a spec per adapter calls this with a factory. */
export function oauthWakeupsContract(
  name: string,
  makeWakeups: () => Promise<OAuthWakeups> | OAuthWakeups,
  /** Adapters shared by several processes: another replica, on the same channel. */
  makePeer?: () => Promise<OAuthWakeups>,
) {
  describe(`OAuthWakeups contract: ${name}`, () => {
    let wakeups: OAuthWakeups;
    beforeEach(async () => {
      wakeups = await makeWakeups();
    });

    it('wakes the listener of a state with its outcome, and only that one', async () => {
      const [a, b] = [unique(), unique()];
      const onA = heard(wakeups, a);
      const onB = heard(wakeups, b);
      await wakeups.publish(a, { ok: false, message: 'access_denied' });
      expect(await onA).toEqual({ ok: false, message: 'access_denied' });
      expect(await onB).toBe('nothing');
    });

    it('a listener that stopped hears nothing; a state nobody listens to is dropped', async () => {
      const state = unique();
      let calls = 0;
      const stop = wakeups.listen(state, () => calls++);
      stop();
      await wakeups.publish(state, { ok: true });
      await wakeups.publish(unique(), { ok: true });
      const later = heard(wakeups, state, 100);
      expect(await later).toBe('nothing');
      expect(calls).toBe(0);
    });

    if (makePeer) {
      it('across processes: a flow settled on one replica wakes the listener on another, once', async () => {
        const [b, c] = [await makePeer(), await makePeer()];
        const state = unique();
        const outcomes: FlowOutcome[] = [];
        wakeups.listen(state, (o) => outcomes.push(o));
        const onC = heard(c, state, 200);
        await b.publish(state, { ok: true });
        const deadline = Date.now() + 2000;
        while (outcomes.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(outcomes).toEqual([{ ok: true }]);
        await b.publish(state, { ok: false, message: 'again' });
        await new Promise((r) => setTimeout(r, 100));
        expect(outcomes).toEqual([{ ok: true }]);
        // c listened too (a replica replaying the same flow); each listener is woken where it waits.
        expect(await onC).toEqual({ ok: true });
      });
    }
  });
}
