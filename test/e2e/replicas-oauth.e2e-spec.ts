import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../utils/cli';
import { valuesOf } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { crash, sharedStoreYaml, type ReplicaOptions } from '../utils/replica-apps';
import { ReplicaServices } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';
import { RECHECK_INTERVAL_MS } from '../../src/oauth/flow-outcome-wait';

const CLIENT_SECRET = 'replicas-client-secret';
const REDIRECT = 'http://interlude.test/auth/redirect';
const session = (user: string) => ({ cookie: `nat-session=${user}` });

interface OAuthRequired {
  execution_id: string;
  auth_url: string;
  oauth_state: string;
}

/** A server on the shared store, its tokens sealed with the key in `keyVariable`. */
function replicaYaml(
  services: ReplicaServices,
  auth: AuthServer,
  keyVariable: string,
  options: ReplicaOptions = {},
): string {
  const provider = oauthProvider(
    auth,
    { client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uri: REDIRECT },
    // Long enough that only a wake-up, never the expiry re-check, can resume a waiting workflow in time.
    { auth_timeout_seconds: 120 },
  );
  const yaml = `${sharedStoreYaml(services, services.newPrefix(), options)}    token_key_env: ${keyVariable}
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}
`;
  return yaml;
}

/** Three servers sharing one Postgres schema and one Redis prefix, each with the same token key. */
async function startOAuthReplicas(services: ReplicaServices, auth: AuthServer, keyVariable: string) {
  const yaml = replicaYaml(services, auth, keyVariable);
  const apps: TestApp[] = [];
  for (let i = 0; i < 3; i++) apps.push(await startApp(yaml));
  return apps;
}

requires('postgres')('OAuth across replicas', () => {
  requires('redis')('with the shared store', () => {
    const services = new ReplicaServices();
    const keyVariable = `INTERLUDE_TEST_TOKEN_KEY_${services.tag}`;
    let auth: AuthServer;
    let a: TestApp;
    let b: TestApp;
    let c: TestApp;

    beforeAll(async () => {
      process.env[keyVariable] = randomBytes(32).toString('base64');
      auth = await startAuthServer({
        clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
        accessTokenTtlSeconds: 3600,
      });
      [a, b, c] = await startOAuthReplicas(services, auth, keyVariable);
    });
    afterAll(async () => {
      await Promise.all([a, b, c].filter(Boolean).map((app) => app.close()));
      await auth?.close();
      await services.cleanup();
      delete process.env[keyVariable];
    });

    const codeExchanges = () => auth.log.tokenRequests.filter((r) => r.grant_type === 'authorization_code');

    it('started on A, consent called back on B: A resumes at once with the token B obtained', async () => {
      const sent = Date.now();
      const onA = await openStream(`${a.url}/v1/workflow/stream`, {
        body: { input_message: 'x' },
        headers: session('alice'),
      });
      const asked = await onA.nextEvent<OAuthRequired>('oauth_required');
      const alice = OAuthBrowser.of(b.url, auth, 'alice', session('alice'));
      const redirect = await alice.consent(asked.auth_url);
      const back = await alice.callback(redirect);
      expect(back.status).toBe(200);
      await onA.end();
      // Woken by B's wake-up: A's first re-read of the flow, 15 s after it began to wait (after `sent`),
      // had not come yet, and the flow's expiry is minutes away.
      expect(Date.now() - sent).toBeLessThan(RECHECK_INTERVAL_MS);
      expect(valuesOf(onA)).toEqual(['Hello alice']);
      const issued = auth.log.issued.filter((i) => i.sub === 'alice');
      expect(issued).toHaveLength(1);
      expect(auth.log.resourceCalls.at(-1)).toEqual({ token: issued[0].access_token, sub: 'alice' });
      expect(codeExchanges()).toHaveLength(1);
    });

    it('the same user on B and C: the token granted through A and B is used, no new consent', async () => {
      const interactions = auth.log.interactions.length;
      for (const replica of [b, c]) {
        const again = await postJson(`${replica.url}/v1/workflow`, { input_message: 'x' }, session('alice'));
        expect(again.status).toBe(200);
        expect(again.json).toEqual({ value: 'Hello alice' });
      }
      expect(auth.log.interactions.length).toBe(interactions);
      expect(codeExchanges()).toHaveLength(1);
      const aliceToken = auth.log.issued.find((i) => i.sub === 'alice')!.access_token;
      expect(auth.log.resourceCalls.slice(-2)).toEqual([
        { token: aliceToken, sub: 'alice' },
        { token: aliceToken, sub: 'alice' },
      ]);
    });

    it('the tokens table holds no token in plaintext', async () => {
      const rows = await services.rows('oauth_token');
      expect(rows.length).toBeGreaterThanOrEqual(1);
      const stored = JSON.stringify(rows);
      const secrets = auth.log.issued.flatMap((i) => [i.access_token, i.refresh_token ?? '']).filter(Boolean);
      expect(secrets.length).toBeGreaterThanOrEqual(1);
      for (const secret of secrets) {
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(Buffer.from(secret).toString('base64'));
      }
      expect(rows.map((r) => r.owner)).toEqual([expect.stringMatching(/^user:[0-9a-f-]{36}:calendar$/)]);
    });

    it('another user does not get the first user’s token: bob is asked for his own consent', async () => {
      const run = await postJson(`${c.url}/v1/workflow`, { input_message: 'x' }, session('bob'));
      expect(run.status).toBe(202);
      const paused = run.json as unknown as OAuthRequired;
      const bob = OAuthBrowser.of(a.url, auth, 'bob', session('bob'));
      expect((await bob.complete(paused.auth_url)).status).toBe(200);
      await eventually(async () => {
        const res = await fetch(`${b.url}/executions/${paused.execution_id}`, { headers: session('bob') });
        expect(await res.json()).toMatchObject({ status: 'completed', result: { value: 'Hello bob' } });
      });
      const tokens = Object.fromEntries(
        ['alice', 'bob'].map((sub) => [
          sub,
          auth.log.resourceCalls.filter((r) => r.sub === sub).map((r) => r.token),
        ]),
      );
      expect(tokens.bob).toHaveLength(1);
      expect(tokens.alice).not.toContain(tokens.bob[0]);
      expect(auth.log.resourceCalls.every((r) => r.sub !== null)).toBe(true);
    });

    it('a callback replayed, or sent to two replicas at once, is exchanged once; the others get the error page', async () => {
      const run = await postJson(`${a.url}/v1/workflow`, { input_message: 'x' }, session('carol'));
      const paused = run.json as unknown as OAuthRequired;
      const carol = OAuthBrowser.of(c.url, auth, 'carol', session('carol'));
      const redirect = await carol.consent(paused.auth_url);
      const before = codeExchanges().length;
      const onB = OAuthBrowser.of(b.url, auth, 'carol', session('carol'));
      const both = await Promise.all([carol.callback(redirect), onB.callback(redirect)]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
      const refused = both.find((r) => r.status === 400)!;
      expect(refused.html).toContain('Invalid state. Please restart the authentication process.');
      for (const replica of [a, b, c]) {
        const replay = await OAuthBrowser.of(replica.url, auth, 'carol', session('carol')).callback(redirect);
        expect(replay.status).toBe(400);
        expect(replay.html).toContain('Invalid state. Please restart the authentication process.');
      }
      expect(codeExchanges().length).toBe(before + 1);
      await eventually(async () => {
        const res = await fetch(`${c.url}/executions/${paused.execution_id}`, { headers: session('carol') });
        expect(await res.json()).toMatchObject({ status: 'completed', result: { value: 'Hello carol' } });
      });
    });

    it('consent denied on C reaches the workflow waiting on A at once', async () => {
      const onA = await openStream(`${a.url}/v1/workflow/stream`, {
        body: { input_message: 'x' },
        headers: session('erin'),
      });
      const asked = await onA.nextEvent<OAuthRequired>('oauth_required');
      const back = await OAuthBrowser.of(c.url, auth, 'erin', session('erin')).complete(asked.auth_url, {
        deny: true,
      });
      expect(back.status).toBe(502);
      await onA.end(3000);
      expect(onA.text).toContain('access_denied');
      const res = await fetch(`${b.url}/executions/${asked.execution_id}`, { headers: session('erin') });
      expect(await res.json()).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('access_denied'),
      });
    });

    it("an anonymous caller's token, granted through C, is dropped when its execution ends on A", async () => {
      const run = await postJson(`${a.url}/v1/workflow`, { input_message: 'x' }, {});
      expect(run.status).toBe(202);
      const paused = run.json as unknown as OAuthRequired;
      expect((await OAuthBrowser.of(c.url, auth, 'anon', {}).complete(paused.auth_url)).status).toBe(200);
      await eventually(async () => {
        const res = await fetch(`${b.url}/executions/${paused.execution_id}`);
        expect(await res.json()).toMatchObject({ status: 'completed', result: { value: 'Hello anon' } });
      });
      await eventually(async () =>
        expect((await services.rows('oauth_token')).filter((r) => r.execution_id !== null)).toEqual([]),
      );
      const again = await postJson(`${b.url}/v1/workflow`, { input_message: 'x' }, {});
      expect(again.status).toBe(202);
    });

    it('`interlude serve` without the token key refuses to start, naming the variable', async () => {
      const missing = `${keyVariable}_MISSING`;
      const dir = mkdtempSync(join(tmpdir(), 'interlude-oauth-'));
      const file = join(dir, 'replica.yml');
      writeFileSync(file, replicaYaml(services, auth, missing));
      try {
        const res = await cli(['serve', '--config', file, '--port', '0']);
        expect(res.code).not.toBe(0);
        expect(res.stderr).toContain(
          `OAuth tokens are stored encrypted and ${missing} is not set; set ${missing} to 32 random bytes`,
        );
        expect(res.stderr + res.stdout).not.toContain(CLIENT_SECRET);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('`interlude serve` with a key of 64 hex zeros refuses to start, saying the key is not random', async () => {
      const weak = `${keyVariable}_ZEROS`;
      const dir = mkdtempSync(join(tmpdir(), 'interlude-oauth-'));
      const file = join(dir, 'replica.yml');
      writeFileSync(file, replicaYaml(services, auth, weak));
      try {
        const res = await cli(['serve', '--config', file, '--port', '0'], { [weak]: '0'.repeat(64) });
        expect(res.code).not.toBe(0);
        expect(res.stderr).toContain(
          `${weak} is not a random key (its 32 bytes take only 1 distinct value); set ${weak} to 32 random bytes`,
        );
        expect(res.stdout).not.toContain('Interlude serving');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  requires('redis')('a consent waiting on a replica that hands its run over', () => {
    const services = new ReplicaServices();
    const keyVariable = `INTERLUDE_TEST_TOKEN_KEY_${services.tag}`;
    let auth: AuthServer;
    let apps: TestApp[] = [];
    beforeAll(async () => {
      process.env[keyVariable] = randomBytes(32).toString('base64');
      auth = await startAuthServer({
        clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
        accessTokenTtlSeconds: 3600,
      });
      const yaml = replicaYaml(services, auth, keyVariable, { leaseSeconds: 2 });
      for (let i = 0; i < 2; i++) apps.push(await startApp(yaml));
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.close()));
      apps = [];
      await auth?.close();
      await services.cleanup();
      delete process.env[keyVariable];
    });

    it('stays open for the replica that takes the run over: consent through it completes the run', async () => {
      const [a, b] = apps;
      const onA = await openStream(`${a.url}/v1/workflow/stream`, {
        body: { input_message: 'x' },
        headers: session('erin'),
      });
      const asked = await onA.nextEvent<OAuthRequired>('oauth_required');
      const id = asked.execution_id;
      onA.destroy();
      // A stops acting on its runs (as on a hand-over or a lease it could not renew): its wait ends
      // there, and must not fail the flow the run goes on waiting for elsewhere.
      crash(a);

      const onB = await openStream(`${b.url}/executions/${id}/stream`, {
        headers: { ...session('erin'), 'Last-Event-ID': '0' },
      });
      const again = await onB.nextEvent<OAuthRequired>('oauth_required');
      expect(again).toMatchObject({ oauth_state: asked.oauth_state, auth_url: asked.auth_url });
      const erin = OAuthBrowser.of(b.url, auth, 'erin', session('erin'));
      const back = await erin.callback(await erin.consent(again.auth_url));
      expect(back.status).toBe(200);
      await onB.end();
      expect(valuesOf(onB)).toEqual(['Hello erin']);
      expect(onB.frames.filter((f) => f.event === 'oauth_required')).toHaveLength(1);
    });
  });
});
