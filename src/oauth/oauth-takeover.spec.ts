import { randomBytes } from 'node:crypto';
import { configFrom } from '../../test/utils/test-app';
import { oauthProvider, startAuthServer, type AuthServer } from '../../test/utils/oidc-server';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { ServerConfig } from '../config/server-config';
import type { Identity } from '../core/identity/identity';
import type { ExecutionEventBody } from '../runtime/execution-event';
import { LazyAbort } from '../runtime/lazy-abort';
import { MemoryOAuthTokens, type OAuthTokens } from './oauth-tokens';
import { MemoryOAuthWakeups, type OAuthWakeups } from './oauth-wakeups';
import type { OAuthFlowWait } from './oauth-wait';
import { OAuthService } from './oauth.service';
import { MemoryPendingOAuthFlows, type PendingOAuthFlows } from './pending-oauth-flows';
import { PostgresOAuthTokens } from './postgres-oauth-tokens';
import { PostgresPendingOAuthFlows } from './postgres-pending-oauth-flows';
import { RedisOAuthWakeups } from './redis-oauth-wakeups';
import { TokenCipher } from './token-cipher';

const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE: Identity = { userId: '6f0f3e1c-0000-4000-8000-00000000a11c', source: 'cookie', claims: {} };

/** What one replica sees of the store: the flows and tokens every replica shares, and its own wake-ups. */
interface Shared {
  flows(): Promise<PendingOAuthFlows>;
  tokens(): Promise<OAuthTokens>;
  /** The wake-ups of a live replica (they reach each other); a dead one hears nothing. */
  wakeups(): Promise<OAuthWakeups>;
}

/** One run of an execution on one replica, as the engine hands it to OAuthService. */
function aRun(id: string, identity: Identity = ALICE) {
  const events: ExecutionEventBody[] = [];
  const records: OAuthFlowWait[] = [];
  const execution = {
    id,
    identity,
    publish: (e: ExecutionEventBody) => events.push(e),
    record: async (w: OAuthFlowWait) => records.push(w),
  };
  return { execution, events, records, abort: new LazyAbort() };
}

async function until<T>(find: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function takeoverSuite(name: string, shared: () => Shared) {
  describe(`a replayed ctx.authenticate after a takeover (${name})`, () => {
    let auth: AuthServer;
    let config: ServerConfig;
    beforeAll(async () => {
      auth = await startAuthServer({
        clients: [{ client_id: 'interlude', client_secret: 's', redirect_uris: [REDIRECT] }],
      });
      const provider = oauthProvider(
        auth,
        { client_id: 'interlude', client_secret: 's', redirect_uri: REDIRECT },
        { auth_timeout_seconds: 60 },
      );
      config = new ServerConfig(
        configFrom(`workflow: { _type: echo }\nauthentication:\n  calendar: ${JSON.stringify(provider)}\n`),
      );
    });
    afterAll(() => auth.close());

    /** A replica: its own OAuthService over the shared store. */
    async function replica(alive = true): Promise<OAuthService> {
      const s = shared();
      const wakeups = alive ? await s.wakeups() : new MemoryOAuthWakeups();
      return new OAuthService(config, await s.flows(), await s.tokens(), wakeups);
    }

    /** The person consents at the provider and the provider sends them back to `callbackOn`. */
    async function consent(callbackOn: OAuthService, state: string, user: string, deny = false, who = ALICE) {
      const started = await callbackOn.begin(state, who);
      if (started.status !== 302) throw new Error(`start: ${started.status}`);
      const redirect = await auth.authorize(started.location, user, { deny });
      return callbackOn.callback(new URL(redirect).searchParams, who, {
        [started.binding.cookieName]: started.binding.value,
      });
    }

    it('waits on the flow the dead replica opened: same state and link, published again (the engine drops it where the log holds it), woken by the callback', async () => {
      const id = `exec-${randomBytes(4).toString('hex')}`;
      const [dead, survivor, other] = [await replica(false), await replica(), await replica()];
      const first = aRun(id);
      const onDead = dead.authenticate(first.execution, 'calendar', first.abort).catch((e: Error) => e);
      const asked = await until(() => first.events.find((e) => e.kind === 'oauth_required'));

      const replay = aRun(id);
      const onSurvivor = survivor.authenticate(replay.execution, 'calendar', replay.abort);
      await until(() => replay.records.find((r) => r.kind === 'oauth_pending'));
      if (asked.kind !== 'oauth_required') throw new Error('unreachable');
      expect(first.records[0]).toMatchObject({ kind: 'oauth_pending', oauth: { state: asked.state } });
      expect(replay.records).toEqual([first.records[0]]);
      expect(replay.events).toEqual([asked]);

      expect((await consent(other, asked.state, 'alice')).status).toBe(200);
      const granted = await onSurvivor;
      const issued = auth.log.issued.filter((i) => i.sub === 'alice').at(-1)!;
      expect(granted).toEqual({ headers: { Authorization: `Bearer ${issued.access_token}` } });
      expect(replay.events.map((e) => e.kind)).toEqual(['oauth_required', 'oauth_resolved']);
      expect(auth.log.issued.filter((i) => i.sub === 'alice')).toHaveLength(1);
      first.abort.abort(new Error('the dead replica is gone'));
      await onDead;
    });

    it('a flow finished while nobody waited: the replay gets the stored token at once, without asking', async () => {
      const id = `exec-${randomBytes(4).toString('hex')}`;
      const identity: Identity = { ...ALICE, userId: `u-${randomBytes(4).toString('hex')}` };
      const [dead, survivor] = [await replica(false), await replica()];
      const first = aRun(id, identity);
      const onDead = dead.authenticate(first.execution, 'calendar', first.abort).catch((e: Error) => e);
      const asked = await until(() => first.events.find((e) => e.kind === 'oauth_required'));
      if (asked.kind !== 'oauth_required') throw new Error('unreachable');
      const started = await survivor.begin(asked.state, identity);
      if (started.status !== 302) throw new Error(`start: ${started.status}`);
      const redirect = await auth.authorize(started.location, 'dora');
      const back = await survivor.callback(new URL(redirect).searchParams, identity, {});
      expect(back.status).toBe(200);

      const replay = aRun(id, identity);
      const granted = await survivor.authenticate(replay.execution, 'calendar', replay.abort);
      const issued = auth.log.issued.filter((i) => i.sub === 'dora');
      expect(issued).toHaveLength(1);
      expect(granted).toEqual({ headers: { Authorization: `Bearer ${issued[0].access_token}` } });
      expect(replay.events).toEqual([]);
      first.abort.abort(new Error('gone'));
      await onDead;
    });

    it('a consent denied while nobody waited fails the replay the same way; asking again opens a new flow', async () => {
      const id = `exec-${randomBytes(4).toString('hex')}`;
      const identity: Identity = { ...ALICE, userId: `u-${randomBytes(4).toString('hex')}` };
      const [dead, survivor] = [await replica(false), await replica()];
      const first = aRun(id, identity);
      const onDead = dead.authenticate(first.execution, 'calendar', first.abort).catch((e: Error) => e);
      const asked = await until(() => first.events.find((e) => e.kind === 'oauth_required'));
      if (asked.kind !== 'oauth_required') throw new Error('unreachable');
      expect((await consent(survivor, asked.state, 'erin', true, identity)).status).toBe(502);

      const replay = aRun(id, identity);
      await expect(survivor.authenticate(replay.execution, 'calendar', replay.abort)).rejects.toThrow(
        'Authorization was refused by the provider: access_denied',
      );
      expect(replay.events).toEqual([]);
      // The workflow asks again in the same run: a new flow with a new state, shown to the client.
      const again = survivor.authenticate(replay.execution, 'calendar', replay.abort).catch((e: Error) => e);
      const reasked = await until(() => replay.events.find((e) => e.kind === 'oauth_required'));
      expect(reasked).toMatchObject({ kind: 'oauth_required', provider: 'calendar' });
      expect(reasked.kind === 'oauth_required' && reasked.state).not.toBe(asked.state);
      replay.abort.abort(new Error('cancelled'));
      expect(await again).toEqual(new Error('cancelled'));
      first.abort.abort(new Error('gone'));
      await onDead;
    });
  });
}

const memory = {
  flows: new MemoryPendingOAuthFlows(),
  tokens: new MemoryOAuthTokens(),
  wakeups: new MemoryOAuthWakeups(),
};
takeoverSuite('memory adapters', () => ({
  flows: async () => memory.flows,
  tokens: async () => memory.tokens,
  wakeups: async () => memory.wakeups,
}));

requires('postgres')('on Postgres and Redis', () => {
  requires('redis')('shared by the replicas', () => {
    const services = new ReplicaServices();
    const prefix = services.newPrefix();
    const key = randomBytes(32);
    afterAll(() => services.cleanup());
    takeoverSuite('postgres + redis', () => ({
      flows: async () => new PostgresPendingOAuthFlows((await services.database()).db, new TokenCipher(key)),
      tokens: async () => new PostgresOAuthTokens((await services.database()).db, new TokenCipher(key)),
      wakeups: async () => RedisOAuthWakeups.create(await services.redis(prefix)),
    }));
  });
});
