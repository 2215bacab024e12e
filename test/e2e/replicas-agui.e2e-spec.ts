import { randomUUID } from 'node:crypto';
import { errorCodeOf, interruptsOf, postRun, RecordingAgent, textOf, types } from '../utils/agui-client';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AguiThreads } from '../../src/agui/agui-threads';
import { crash, startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, type TestApp } from '../utils/test-app';

const WORKFLOW = scriptedYaml(
  `- stream: { text: 'asking ' }
- prompt: { input_type: text, text: 'Your name?', save_as: name, timeout: 60 }
- stream: { text: 'thanks ' }
- prompt: { input_type: radio, text: 'Colour?', options: [{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }], save_as: colour }`,
  '{{colour}} for {{name}}',
);

const alice = { authorization: 'Bearer nvapi-alice' };

/**
 * `app` dies the moment a response of its writes an interrupt outcome: what it would write after that
 * frame about its AG-UI threads is lost (as with a SIGKILL), and its executions stop where they are.
 */
function dieOnInterruptFrame(app: TestApp): void {
  const threads = app.app.get(AguiThreads);
  const server = app.app.getHttpServer() as Server;
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const sent = write(chunk, ...rest);
      if (/"type":"RUN_FINISHED".*"type":"interrupt"/.test(String(chunk))) {
        for (const method of ['save', 'release', 'renew'] as const) {
          jest.spyOn(threads, method).mockResolvedValue(undefined);
        }
        setImmediate(() => crash(app));
      }
      return sent;
    }) as ServerResponse['write'];
  });
}
const bob = { authorization: 'Bearer nvapi-bob' };

/** Two servers sharing one Postgres and one Redis: an AG-UI thread resumed on another replica. */
requires('postgres')('AG-UI across replicas', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    let a: string;
    let b: string;
    beforeAll(async () => {
      replicas = await startReplicas(2, WORKFLOW);
      [a, b] = replicas.apps.map((app) => `${app.url}/v1/ag-ui`);
    });
    afterAll(() => replicas.close());

    it('interrupted on A, resumed on B, interrupted again, resumed on A: the workflow got both answers', async () => {
      const agent = new RecordingAgent(a, { headers: alice }).say('hello');
      const [name] = interruptsOf(await agent.run());
      expect(name).toMatchObject({ message: 'Your name?' });

      agent.agent.url = b;
      const second = await agent.resume({ [name.id]: 'Ada' });
      const [colour] = interruptsOf(second);
      expect(colour).toMatchObject({ message: 'Colour?' });
      expect(textOf(second)).toBe('thanks ');
      expect(types(second)[0]).toBe('RUN_STARTED');

      agent.agent.url = a;
      const last = await agent.resume({ [colour.id]: 'g' });
      expect(textOf(last)).toBe('green for Ada');
      expect(last.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(agent.pendingInterrupts).toEqual([]);
    });

    it('a new run on B of a thread waiting on A is told to resume first (the thread is shared)', async () => {
      const threadId = randomUUID();
      const asked = await postRun(a, { threadId }, alice);
      const [ask] = interruptsOf(asked.events);
      expect(errorCodeOf(await postRun(b, { threadId }, alice))).toBe('PENDING_INTERRUPTS');
      const resumed = await postRun(
        b,
        { threadId, resume: [{ interruptId: ask.id, status: 'resolved', payload: 'Cy' }] },
        alice,
      );
      expect(resumed.status).toBe(200);
      expect(interruptsOf(resumed.events)[0]).toMatchObject({ message: 'Colour?' });
    });

    it('another identity gets 404 for the thread on every replica and cannot resume it', async () => {
      const threadId = randomUUID();
      const [ask] = interruptsOf((await postRun(a, { threadId }, alice)).events);
      const resume = [{ interruptId: ask.id, status: 'resolved', payload: 'Eve' }];
      for (const url of [a, b]) {
        expect((await postRun(url, { threadId, resume }, bob)).status).toBe(404);
      }
      const own = await postRun(b, { threadId, resume: [{ ...resume[0], payload: 'Al' }] }, alice);
      expect(interruptsOf(own.events)[0]).toMatchObject({ message: 'Colour?' });
    });

    it('the same thread id is a thread of each identity on every replica: bob’s run on B leaves alice’s on A alone', async () => {
      const threadId = randomUUID();
      const aliceAgent = new RecordingAgent(a, { threadId, headers: alice }).say('hello');
      const [aliceAsk] = interruptsOf(await aliceAgent.run());
      const bobAgent = new RecordingAgent(b, { threadId, headers: bob }).say('hello');
      const [bobAsk] = interruptsOf(await bobAgent.run());
      expect(bobAsk.id).not.toBe(aliceAsk.id);
      aliceAgent.agent.url = b;
      bobAgent.agent.url = a;
      interruptsOf(await bobAgent.resume({ [bobAsk.id]: 'Bo' }));
      interruptsOf(await aliceAgent.resume({ [aliceAsk.id]: 'Al' }));
      expect(textOf(await aliceAgent.resume({ [aliceAgent.pendingInterrupts[0].id]: 'r' }))).toBe(
        'red for Al',
      );
      expect(textOf(await bobAgent.resume({ [bobAgent.pendingInterrupts[0].id]: 'g' }))).toBe('green for Bo');
    });

    it('an anonymous run on B of an anonymous thread waiting on A learns no interrupt id', async () => {
      const victim = new RecordingAgent(a).say('hello');
      const [ask] = interruptsOf(await victim.run());
      const attack = await postRun(b, { threadId: victim.threadId });
      expect(errorCodeOf(attack)).toBe('PENDING_INTERRUPTS');
      expect(attack.body).not.toContain(ask.id);
      victim.agent.url = b;
      expect(interruptsOf(await victim.resume({ [ask.id]: 'Vi' }))[0]).toMatchObject({ message: 'Colour?' });
    });

    it('a resume replayed on A after B applied it shows the same run, and the answer counts once', async () => {
      const threadId = randomUUID();
      const [ask] = interruptsOf((await postRun(a, { threadId }, alice)).events);
      const resume = [{ interruptId: ask.id, status: 'resolved', payload: 'Di' }];
      const first = await postRun(b, { threadId, resume }, alice);
      const [colour] = interruptsOf(first.events);
      const again = await postRun(a, { threadId, resume }, alice);
      expect(again.status).toBe(200);
      expect(interruptsOf(again.events)[0].id).toBe(colour.id);
      const done = await postRun(
        a,
        { threadId, resume: [{ interruptId: colour.id, status: 'resolved', payload: 'r' }] },
        alice,
      );
      expect(textOf(done.events)).toBe('red for Di');
    });

    describe('a replica killed as its interrupt frame goes out', () => {
      let dying: Replicas;
      beforeAll(async () => {
        dying = await startReplicas(2, WORKFLOW, { leaseSeconds: 2 });
      });
      afterAll(() => dying.close());

      it('the interrupt the client saw is resumed on the other replica, not refused', async () => {
        const [onA, onB] = dying.apps;
        dieOnInterruptFrame(onA);
        const agent = new RecordingAgent(`${onA.url}/v1/ag-ui`, { headers: alice }).say('hello');
        const [name] = interruptsOf(await agent.run());
        expect(name).toMatchObject({ message: 'Your name?' });

        agent.agent.url = `${onB.url}/v1/ag-ui`;
        const second = await agent.resume({ [name.id]: 'Ada' });
        expect(second.at(-1)).not.toMatchObject({ type: 'RUN_ERROR' });
        const [colour] = interruptsOf(second);
        expect(colour).toMatchObject({ message: 'Colour?' });
        const last = await agent.resume({ [colour.id]: 'r' });
        expect(textOf(last)).toBe('red for Ada');
      });
    });

    describe('a run streaming on A', () => {
      let slow: Replicas;
      beforeAll(async () => {
        slow = await startReplicas(2, scriptedYaml(`- stream: { text: 'one two three', delay_seconds: 30 }`));
      });
      afterAll(() => slow.close());

      it('makes a second run of the thread on B get THREAD_BUSY; leaving A cancels it, as B sees', async () => {
        const [sa, sb] = slow.apps.map((app) => app.url);
        const threadId = randomUUID();
        const leave = new AbortController();
        const first = await fetch(`${sa}/v1/ag-ui`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...alice },
          body: JSON.stringify({ threadId, runId: 'r1', messages: [] }),
          signal: leave.signal,
        });
        const executionId = first.headers.get('x-execution-id')!;
        const reader = first.body!.getReader();
        expect(Buffer.from((await reader.read()).value!).toString()).toContain('RUN_STARTED');
        expect(errorCodeOf(await postRun(`${sb}/v1/ag-ui`, { threadId }, alice))).toBe('THREAD_BUSY');
        leave.abort();
        await eventually(async () => {
          const res = await fetch(`${sb}/executions/${executionId}`, { headers: alice });
          expect(((await res.json()) as { status: string }).status).toBe('failed');
        });
        // Once A let the thread go, B takes runs of it (a resume naming no interrupt of it, here).
        const resume = [{ interruptId: 'none', status: 'resolved', payload: 'x' }];
        await eventually(async () =>
          expect(errorCodeOf(await postRun(`${sb}/v1/ag-ui`, { threadId, resume }, alice))).toBe(
            'UNKNOWN_INTERRUPT_ID',
          ),
        );
      });
    });
  });
});
