import { randomBytes } from 'node:crypto';
import { interruptsOf, RecordingAgent, textOf } from '../utils/agui-client';
import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';
import { reply, userMessage, WsClient, type WsMessage } from '../utils/ws-client';
import { RECHECK_INTERVAL_MS } from '../../src/oauth/flow-outcome-wait';
import { holdMachineLock } from '../utils/machine-lock';

/**
 * The WebSocket and AG-UI faces on three real `interlude serve` processes sharing one Postgres schema
 * and one Redis prefix: a conversation or a thread moves to another replica, also when its replica
 * stops (SIGTERM) or dies (SIGKILL). Needs `npm run build`.
 */
const WORKFLOW = scriptedYaml(
  `- stream: { text: 'asking ' }
- sleep: { seconds: 1.5 }
- prompt: { input_type: text, text: 'Your name?', timeout: 60, save_as: name }
- stream: { text: 'thanks ' }
- sleep: { seconds: 1.5 }`,
  'hello {{name}} ({{input}})',
);

const LEASE_SECONDS = 2;
/** shutdown_grace_seconds: a SIGTERM'd replica exits by then whatever it still runs. */
const GRACE_MS = 5000;
/** Long enough for a takeover after SIGKILL (the lease, a scan, the replay). */
const TAKEOVER_MS = 15_000;

const aguiHeaders = (user: string) => ({ authorization: `Bearer nvapi-faces-${user}` });

/** The text a WebSocket run showed after a prompt. */
const shownText = (messages: WsMessage[]) =>
  messages
    .filter((m) => m.type === 'system_response_message' && m.status === 'in_progress')
    .map((m) => m.content.text)
    .join('');

requires('postgres')('The WebSocket and AG-UI faces on three server processes', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store', () => {
    let replicas: ReplicaProcesses;
    const clients: WsClient[] = [];
    jest.setTimeout(60_000);

    beforeAll(async () => {
      replicas = await ReplicaProcesses.start(3, WORKFLOW, {
        general: { executions: { lease_seconds: LEASE_SECONDS }, shutdown_grace_seconds: GRACE_MS / 1000 },
      });
    }, 60_000);
    afterEach(async () => {
      for (const client of clients.splice(0)) client.close();
      // A replica a test stopped is back for the next (restart refuses one that runs).
      for (let i = 0; i < replicas.count; i++) await replicas.restart(i).catch(() => undefined);
    });
    afterAll(async () => {
      await replicas?.close();
    });

    async function connect(replica: number, query: Record<string, string>): Promise<WsClient> {
      const client = await WsClient.connect(replicas.url(replica), query);
      clients.push(client);
      return client;
    }

    /** Starts a conversation on `replica` and waits for its prompt (the socket stays open). */
    async function askedOn(replica: number, user: string, conversation: string) {
      const client = await connect(replica, { session: user });
      client.send(userMessage(user, { id: `u-${conversation}`, conversation_id: conversation }));
      const seen = await client.until((m) => m.type === 'system_interaction_message');
      const asked = seen.at(-1)!;
      expect(asked.content).toMatchObject({ text: 'Your name?', timeout: 60 });
      return { client, asked };
    }

    /** Reconnects to `replica` with `?conversation_id=` until it shows the pending prompt. */
    async function promptOn(replica: number, user: string, conversation: string, timeoutMs = TAKEOVER_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const client = await connect(replica, { session: user, conversation_id: conversation });
        try {
          return { client, prompt: await client.next(2000) };
        } catch (err) {
          client.close();
          if (Date.now() > deadline) throw new Error(`${String(err)}\n${replicas.output()}`, { cause: err });
        }
      }
    }

    /** Answers the prompt on `client` and returns what the rest of the run showed. */
    async function answer(client: WsClient, conversation: string, text: string, timeoutMs = TAKEOVER_MS) {
      client.send(reply(text, { conversation_id: conversation }));
      try {
        return await client.run(timeoutMs);
      } catch (err) {
        throw new Error(`${String(err)}\n${replicas.output()}`, { cause: err });
      }
    }

    it('WebSocket: started on A, reconnected to B, answered there: B shows the rest and the final answer', async () => {
      const { client, asked } = await askedOn(0, 'wanda', 'conv-ab');
      client.close();
      await client.closed;
      const { client: onB, prompt } = await promptOn(1, 'wanda', 'conv-ab');
      expect(prompt).toMatchObject({
        type: 'system_interaction_message',
        id: asked.id,
        parent_id: 'u-conv-ab',
        conversation_id: 'conv-ab',
        content: { text: 'Your name?' },
      });
      expect(prompt.content.timeout).toBeLessThanOrEqual(60);
      const rest = await answer(onB, 'conv-ab', 'Wanda');
      expect(shownText(rest)).toBe('thanks hello Wanda (wanda)');
      expect(rest.at(-2)).toMatchObject({ type: 'system_response_message', status: 'complete' });
    });

    it('AG-UI: interrupted on A, resumed on B: the run completes with the answer', async () => {
      const agent = new RecordingAgent(`${replicas.url(0)}/v1/ag-ui`, { headers: aguiHeaders('ada') }).say(
        'ada',
      );
      const first = await agent.run();
      const [ask] = interruptsOf(first);
      expect(ask).toMatchObject({ message: 'Your name?' });
      expect(textOf(first)).toBe('asking ');
      agent.agent.url = `${replicas.url(1)}/v1/ag-ui`;
      const done = await agent.resume({ [ask.id]: 'Ada' });
      // the text and the run's last event together, so that a failure shows a RUN_ERROR's code and message
      expect({ text: textOf(done), last: done.at(-1) }).toMatchObject({
        text: expect.stringContaining('hello Ada (ada)'),
        last: { type: 'RUN_FINISHED', outcome: { type: 'success' } },
      });
      expect(agent.pendingInterrupts).toEqual([]);
    });

    it('SIGTERM of the replica holding a WebSocket closes it with 1012; reconnected elsewhere, the run completes', async () => {
      const { client, asked } = await askedOn(0, 'sam', 'conv-term');
      const stopped = Date.now();
      const exited = replicas.kill(0, 'SIGTERM');
      const closed = await client.closed;
      // At the handover: the grace period, which starts after `stopped`, had not run out.
      expect(Date.now() - stopped).toBeLessThan(GRACE_MS);
      expect(closed).toEqual({ code: 1012, reason: expect.stringContaining('conversation_id') });
      const exit = await exited;
      // Nest re-raises the signal once the app closed.
      expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
      const { client: onC, prompt } = await promptOn(2, 'sam', 'conv-term');
      expect(prompt).toMatchObject({ type: 'system_interaction_message', id: asked.id });
      expect(prompt.content.timeout).toBeLessThanOrEqual(60);
      const rest = await answer(onC, 'conv-term', 'Sam');
      expect(shownText(rest)).toBe('thanks hello Sam (sam)');
    });

    it('SIGTERM of the replica streaming an AG-UI run: RUN_ERROR SERVER_RESTARTING at once; the same run sent to another replica completes it', async () => {
      const agent = new RecordingAgent(`${replicas.url(1)}/v1/ag-ui`, { headers: aguiHeaders('tess') }).say(
        'tess',
      );
      const [ask] = interruptsOf(await agent.run());
      const resuming = agent.resume({ [ask.id]: 'Tess' });
      // In the sleep after 'thanks ': the run is streaming when B stops.
      await eventually(() => expect(textOf(agent.events)).toBe('thanks '));
      const stopped = Date.now();
      const exited = replicas.kill(1, 'SIGTERM');
      const cut = await resuming;
      expect(Date.now() - stopped).toBeLessThan(GRACE_MS);
      expect(cut.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'SERVER_RESTARTING' });
      expect(cut.map((e) => e.type)).not.toContain('RUN_FINISHED');
      // RUN_ERROR leaves the client's interrupts pending: its retry is the same resume.
      expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([ask.id]);
      await exited;

      agent.agent.url = `${replicas.url(2)}/v1/ag-ui`;
      const again = await agent.resume({ [ask.id]: 'Tess' });
      // Each part once: the replay publishes nothing the cut run had published already. The retry
      // shows the rest, or also 'thanks ' when the thread's cursor had not reached it at the cut.
      expect(textOf(cut)).toBe('thanks ');
      expect(['hello Tess (tess)', 'thanks hello Tess (tess)']).toContain(textOf(again));
      expect(again.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(agent.pendingInterrupts).toEqual([]);
    });

    it('SIGTERM of the replica streaming the first run of an AG-UI thread: the same run sent to another replica shows the rest', async () => {
      const agent = new RecordingAgent(`${replicas.url(2)}/v1/ag-ui`, { headers: aguiHeaders('uma') }).say(
        'uma',
      );
      const first = agent.run();
      // In the sleep after 'asking ': the run is streaming when C stops.
      await eventually(() => expect(textOf(agent.events)).toBe('asking '));
      const exited = replicas.kill(2, 'SIGTERM');
      const cut = await first;
      expect(cut.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'SERVER_RESTARTING' });
      expect(agent.pendingInterrupts).toEqual([]);
      await exited;

      agent.agent.url = `${replicas.url(0)}/v1/ag-ui`;
      const again = await agent.run();
      // What the cut run did not show; text streamed between two journal points may come again, since
      // the replica that took over ran that part again (docs/replicas.md, "Durable waits": at least once).
      expect(['', 'asking ']).toContain(textOf(again));
      const [ask] = interruptsOf(again);
      expect(ask).toMatchObject({ message: 'Your name?' });
      agent.agent.url = `${replicas.url(1)}/v1/ag-ui`;
      const done = await agent.resume({ [ask.id]: 'Uma' });
      expect(textOf(done)).toContain('hello Uma (uma)');
      expect(done.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    });

    it('SIGKILL of the replica running a WebSocket conversation and an AG-UI thread: survivors take both over', async () => {
      const { asked } = await askedOn(0, 'kim', 'conv-kill');
      const agent = new RecordingAgent(`${replicas.url(0)}/v1/ag-ui`, { headers: aguiHeaders('kai') }).say(
        'kai',
      );
      const [ask] = interruptsOf(await agent.run());
      expect((await replicas.kill(0, 'SIGKILL')).signal).toBe('SIGKILL');

      const { client: onB, prompt } = await promptOn(1, 'kim', 'conv-kill');
      expect(prompt).toMatchObject({ type: 'system_interaction_message', id: asked.id });
      expect(prompt.content.timeout).toBeLessThanOrEqual(60);
      expect(prompt.content.timeout).toBeGreaterThan(40);
      const rest = await answer(onB, 'conv-kill', 'Kim');
      expect(shownText(rest)).toBe('thanks hello Kim (kim)');

      agent.agent.url = `${replicas.url(2)}/v1/ag-ui`;
      const done = await agent.resume({ [ask.id]: 'Kai' });
      // the text and the run's last event together, so that a failure shows a RUN_ERROR's code and message
      expect({ text: textOf(done), last: done.at(-1) }).toMatchObject({
        text: expect.stringContaining('hello Kai (kai)'),
        last: { type: 'RUN_FINISHED', outcome: { type: 'success' } },
      });
    });
  });
});

const CLIENT_SECRET = 'faces-client-secret';
const REDIRECT = 'http://interlude.test/auth/redirect';

requires('postgres')('OAuth consent on three server processes', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store', () => {
    let auth: AuthServer;
    let replicas: ReplicaProcesses;
    jest.setTimeout(60_000);

    beforeAll(async () => {
      auth = await startAuthServer({
        clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
        accessTokenTtlSeconds: 3600,
      });
      const provider = oauthProvider(
        auth,
        { client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uri: REDIRECT },
        // Only a wake-up, never the flow's expiry re-check, can resume the waiting workflow in time.
        { auth_timeout_seconds: 120 },
      );
      const yaml = calendarWorkflowYaml(auth, provider);
      replicas = await ReplicaProcesses.start(3, yaml, {
        general: { executions: { lease_seconds: LEASE_SECONDS }, outbound: { allow_hosts: ['127.0.0.1'] } },
        // Every replica seals and opens the shared tokens with the same key.
        env: { INTERLUDE_TOKEN_KEY: randomBytes(32).toString('base64') },
      });
    }, 60_000);
    afterAll(async () => {
      await replicas?.close();
      await auth?.close();
    });

    it('a consent asked on a WebSocket on A and called back on C wakes A, which shows the final answer', async () => {
      const sent = Date.now();
      const onA = await WsClient.connect(replicas.url(0), { session: 'olga' });
      try {
        onA.send(userMessage('x', { id: 'u-oauth', conversation_id: 'conv-oauth' }));
        const [consent] = await onA.until((m) => m.type === 'system_interaction_message');
        expect(consent.content).toMatchObject({ input_type: 'oauth_consent' });
        const browser = OAuthBrowser.of(replicas.url(2), auth, 'olga', { cookie: 'nat-session=olga' });
        const redirect = await browser.consent(consent.content.text as string);
        expect((await browser.callback(redirect)).status).toBe(200);
        const rest = await onA.run();
        // Woken by C's wake-up: A's first re-read of the flow, 15 s after it began to wait (after `sent`),
        // had not come yet, and the flow's expiry is minutes away.
        expect(Date.now() - sent).toBeLessThan(RECHECK_INTERVAL_MS);
        expect(shownText(rest)).toBe('Hello olga');
        const issued = auth.log.issued.filter((i) => i.sub === 'olga');
        expect(issued).toHaveLength(1);
        expect(auth.log.resourceCalls.at(-1)).toEqual({ token: issued[0].access_token, sub: 'olga' });
      } catch (err) {
        throw new Error(`${String(err)}\n${replicas.output()}`, { cause: err });
      } finally {
        onA.close();
      }
    });

    it('a consent asked on a WebSocket on A, A killed: reconnected to B it is asked again, and the callback on C completes it there', async () => {
      const onA = await WsClient.connect(replicas.url(0), { session: 'pia' });
      let onB: WsClient | undefined;
      try {
        onA.send(userMessage('x', { id: 'u-oauth-kill', conversation_id: 'conv-oauth-kill' }));
        const [consent] = await onA.until((m) => m.type === 'system_interaction_message');
        expect((await replicas.kill(0, 'SIGKILL')).signal).toBe('SIGKILL');
        onB = await WsClient.connect(replicas.url(1), { session: 'pia', conversation_id: 'conv-oauth-kill' });
        // Also when A died before its append of the consent to the shared log landed: B shows it from the record.
        expect(await onB.next()).toMatchObject({
          type: 'system_interaction_message',
          id: consent.id,
          content: { input_type: 'oauth_consent', text: consent.content.text },
        });
        const browser = OAuthBrowser.of(replicas.url(2), auth, 'pia', { cookie: 'nat-session=pia' });
        expect((await browser.complete(consent.content.text as string)).status).toBe(200);
        // The replica that claims the execution replays it to the same consent and takes its outcome.
        expect(shownText(await onB.run(TAKEOVER_MS))).toBe('Hello pia');
        expect(auth.log.issued.filter((i) => i.sub === 'pia')).toHaveLength(1);
        expect(auth.log.resourceCalls.filter((r) => r.sub === 'pia')).toHaveLength(1);
      } catch (err) {
        throw new Error(`${String(err)}\n${replicas.output()}`, { cause: err });
      } finally {
        onA.close();
        onB?.close();
      }
    });
  });
});
