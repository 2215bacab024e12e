import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { crash, handOver, startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, type TestApp } from '../utils/test-app';

/** Asks a person after a pause (a cancel or a crash lands in it), then sleeps before it ends. */
const WORKFLOW = scriptedYaml(
  `- stream: { text: 'Hi {{input}}. ' }
- sleep: { seconds: {{pause}} }
- prompt: { input_type: text, text: 'Your city?', save_as: city }`,
  'See you in {{city}}.',
);

const LEASE_SECONDS = 2;
/** A takeover lands within the lease plus a scan; room for a loaded machine. */
const TAKEOVER_MS = 20_000;

const sdkOn = (t: TestApp, key = 'nvapi-dana') =>
  new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0 });

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function functionCall(response: OpenAI.Responses.Response): OpenAI.Responses.ResponseFunctionToolCall {
  const call = response.output.at(-1)!;
  if (call.type !== 'function_call') throw new Error(`not a function call: ${call.type}`);
  return call;
}

/** Polls until the response is no longer queued or in progress. */
async function settled(sdk: OpenAI, id: string, within?: number): Promise<OpenAI.Responses.Response> {
  return eventually(
    async () => {
      const polled = await sdk.responses.retrieve(id);
      expect(['queued', 'in_progress']).not.toContain(polled.status);
      return polled;
    },
    within,
    100,
  );
}

async function executionStatus(t: TestApp, responseId: string): Promise<string> {
  const headers = { authorization: 'Bearer nvapi-dana' };
  const res = await fetch(`${t.url}/v1/responses/${responseId}`, { headers });
  const executionId = res.headers.get('x-execution-id')!;
  const execution = await fetch(`${t.url}/executions/${executionId}`, { headers });
  return ((await execution.json()) as { status: string }).status;
}

const pauseOf = (seconds: number) => WORKFLOW.replace('{{pause}}', String(seconds));

requires('postgres')('background responses across replicas (PostgreSQL store, Redis)', () => {
  requires('redis')('with Redis', () => {
    describe('started on A', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        replicas = await startReplicas(2, pauseOf(1));
        [a, b] = replicas.apps;
      }, 60_000);
      afterAll(() => replicas?.close());

      it('is polled on B, re-attached on B after event N, answered on B in the background and polled on A', async () => {
        const created = await sdkOn(a).responses.create({ model: 'm', input: 'Ann', background: true });
        expect(created).toMatchObject({ status: 'queued', background: true });

        const paused = await settled(sdkOn(b), created.id);
        expect(paused.status).toBe('completed');
        expect(paused.output_text).toBe('Hi Ann. ');
        const call = functionCall(paused);
        expect(call).toMatchObject({ name: 'human_input' });

        const all = await collect(await sdkOn(b).responses.retrieve(created.id, { stream: true }));
        expect(all.map((e) => e.sequence_number)).toEqual([...all.keys()]);
        expect(all.at(-1)).toMatchObject({ type: 'response.completed', response: { output: paused.output } });
        const later = await collect(
          await sdkOn(b).responses.retrieve(created.id, { stream: true, starting_after: 3 }),
        );
        expect(later).toEqual(all.slice(4));
        await expect(sdkOn(b, 'nvapi-eve').responses.retrieve(created.id)).rejects.toMatchObject({
          status: 404,
        });

        const answer = await sdkOn(b).responses.create({
          model: 'm',
          background: true,
          previous_response_id: created.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Oslo' }],
        });
        const done = await settled(sdkOn(a), answer.id);
        expect(done).toMatchObject({ status: 'completed', output_text: 'See you in Oslo.' });
      });

      it('streamed on A, re-attached on B while it runs: B streams every later event once, to the end', async () => {
        const stream = await sdkOn(a).responses.create({
          model: 'm',
          input: 'Bo',
          background: true,
          stream: true,
        });
        const onA: ResponseStreamEvent[] = [];
        for await (const event of stream) {
          onA.push(event);
          if (event.type === 'response.output_text.delta') break;
        }
        const id = (onA[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
        const last = onA.at(-1)!.sequence_number;
        const onB = await collect(
          await sdkOn(b).responses.retrieve(id, { stream: true, starting_after: last }),
        );
        expect(onB[0].sequence_number).toBe(last + 1);
        expect(onB.map((e) => e.sequence_number)).toEqual(onB.map((_, i) => last + 1 + i));
        expect(onB.at(-1)).toMatchObject({ type: 'response.completed' });
        expect(functionCall((onB.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response)).toMatchObject({
          name: 'human_input',
        });
      });
    });

    describe('cancelled on B while A runs it', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        replicas = await startReplicas(2, pauseOf(30));
        [a, b] = replicas.apps;
      }, 60_000);
      afterAll(() => replicas?.close());

      it('the response is cancelled on both replicas and its workflow really stops', async () => {
        const created = await sdkOn(a).responses.create({ model: 'm', input: 'Cy', background: true });
        await eventually(async () =>
          expect((await sdkOn(b).responses.retrieve(created.id)).status).toBe('in_progress'),
        );
        const cancelled = await sdkOn(b).responses.cancel(created.id);
        expect(cancelled.status).toBe('cancelled');
        // The execution A ran has ended: the workflow stopped, it does not wait 30 s.
        await eventually(async () => expect(await executionStatus(b, created.id)).toBe('failed'));
        await eventually(async () =>
          expect((await sdkOn(a).responses.retrieve(created.id)).status).toBe('cancelled'),
        );
        expect((await sdkOn(b).responses.retrieve(created.id)).status).toBe('cancelled');
        // A cancelled response stays cancelled: a second cancel changes nothing.
        expect((await sdkOn(a).responses.cancel(created.id)).status).toBe('cancelled');
      });
    });

    describe('when A dies while it runs one', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        replicas = await startReplicas(2, pauseOf(3), { leaseSeconds: LEASE_SECONDS });
        [a, b] = replicas.apps;
      }, 60_000);
      afterAll(() => replicas?.close());

      it('B takes the execution over: polling B shows the response reach its function call, and B completes it', async () => {
        const created = await sdkOn(a).responses.create({ model: 'm', input: 'Di', background: true });
        await eventually(async () =>
          expect((await sdkOn(b).responses.retrieve(created.id)).status).toBe('in_progress'),
        );
        crash(a);
        const paused = await settled(sdkOn(b), created.id, TAKEOVER_MS);
        expect(paused.status).toBe('completed');
        expect(paused.output_text).toBe('Hi Di. ');
        const call = functionCall(paused);

        const done = await sdkOn(b).responses.create({
          model: 'm',
          previous_response_id: created.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Rome' }],
        });
        expect(done).toMatchObject({ status: 'completed', output_text: 'See you in Rome.' });
      });
    });

    describe('when A is told to stop while it runs one', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        // A lease far longer than the test: only the handover explains B running it.
        replicas = await startReplicas(2, pauseOf(2), { leaseSeconds: 60 });
        [a, b] = replicas.apps;
      }, 60_000);
      afterAll(() => replicas?.close());

      it('A hands the execution over; polling B shows the response reach its function call', async () => {
        const created = await sdkOn(a).responses.create({ model: 'm', input: 'Ed', background: true });
        await eventually(async () =>
          expect((await sdkOn(b).responses.retrieve(created.id)).status).toBe('in_progress'),
        );
        await handOver(a);
        const paused = await settled(sdkOn(b), created.id, TAKEOVER_MS);
        expect(paused).toMatchObject({ status: 'completed', output_text: 'Hi Ed. ' });
        expect(functionCall(paused)).toMatchObject({ name: 'human_input' });
      });
    });
  });
});
