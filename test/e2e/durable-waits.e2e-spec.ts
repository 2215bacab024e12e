import { Client } from 'pg';
import { ExecutionRunner } from '../../src/executions/engine/execution-runner';
import { BackingRedis } from '../../src/redis/backing-redis';
import { ExecutionStore } from '../../src/executions/store/execution.store';
import { Executions, call, type Pause } from '../utils/hitl';
import { type InteractionEvent, YAML, expectNumbered, valuesOf } from '../utils/hitl-stream';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { openStream } from '../utils/live-sse';
import { crash, handOver, replicaOf, startReplicas, type Replicas } from '../utils/replica-apps';
import type { ReplicaServices } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, type TestApp } from '../utils/test-app';
import { WAIT_MS } from '../utils/timing';

const LEASE_SECONDS = 2;
/** A claim lands within the lease plus one scan (a quarter of the lease); this leaves room for a slow CI. */
const CLAIM_WITHIN_MS = LEASE_SECONDS * 1000 + 2500;
/** A lease far longer than a test: only a handover (or a release) can explain a claim before it lapses. */
const LONG_LEASE_SECONDS = 60;

/** The replica a durable execution's record names as running it (null: released). */
async function ownerOf(services: ReplicaServices, id: string): Promise<string | null | undefined> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ replica: string | null }>(
      `select replica from ${services.schema}.execution_record where id = $1`,
      [id],
    );
    return rows[0]?.replica;
  } finally {
    await client.end();
  }
}

async function pausedOn(app: TestApp, body: unknown): Promise<Pause> {
  const res = await call('POST', `${app.url}/v1/workflow`, body);
  expect(res.status).toBe(202);
  return res.json as unknown as Pause;
}

/** Waits until `app` has claimed the execution; returns how long that took. */
async function claimedBy(
  replicas: Replicas,
  app: TestApp,
  id: string,
  since: number,
  within = CLAIM_WITHIN_MS,
): Promise<number> {
  await eventually(async () => expect(await ownerOf(replicas.services, id)).toBe(replicaOf(app)), within, 50);
  return Date.now() - since;
}

/**
 * Re-attaches to execution `id` on `app` from its start, answers its question with `name`, and checks
 * the whole stream: every frame once, in order, to the end.
 */
async function reattachAndAnswer(app: TestApp, id: string, name: string): Promise<void> {
  const stream = await openStream(`${app.url}/executions/${id}/stream`, {
    headers: { 'Last-Event-ID': '0' },
  });
  const prompt = await stream.next((f) => f.event === 'interaction_required');
  const event = JSON.parse(prompt.data!) as InteractionEvent;
  const answered = await new Executions(app.url).answer(event.response_url, { type: 'text', text: name });
  expect(answered.status).toBe(204);
  await stream.end();
  expect(valuesOf(stream)).toEqual(['before ', 'the ', 'question', 'after ', name, `Hello ${name}`]);
}

requires('postgres')('Durable waits', () => {
  requires('redis')('with the shared store', () => {
    describe('a scripted prompt', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      beforeEach(async () => {
        replicas = await startReplicas(2, YAML, { leaseSeconds: LEASE_SECONDS });
        [a, b] = replicas.apps;
      });
      afterEach(() => replicas.close());

      it('waiting on A when A dies: B claims it within the lease, waits with the same id and deadline, and its answer completes it once', async () => {
        const onA = await openStream(`${a.url}/v1/workflow/stream`, { body: { input_message: 'Ann' } });
        const prompt = await onA.next((f) => f.event === 'interaction_required');
        const event = JSON.parse(prompt.data!) as InteractionEvent;
        const id = event.execution_id;
        const before = (await new Executions(b.url).status(id)).json;
        onA.destroy();

        const died = Date.now();
        crash(a);
        expect(await claimedBy(replicas, b, id, died)).toBeLessThan(CLAIM_WITHIN_MS);

        // Still the same wait, as a poll on B shows it.
        const after = (await new Executions(b.url).status(id)).json;
        expect(after).toEqual(before);
        expect(after).toMatchObject({ status: 'interaction_required', interaction_id: event.interaction_id });

        // Re-attached on B after the prompt: the replay published nothing again.
        const onB = await openStream(`${b.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': String(prompt.id) },
        });
        expect(onB.status).toBe(200);
        const answered = await new Executions(b.url).answer(event.response_url, {
          type: 'text',
          text: 'Ada',
        });
        expect(answered.status).toBe(204);
        await onB.end();
        expectNumbered(onB.frames);
        expect(onB.frames.filter((f) => f.event === 'interaction_required')).toHaveLength(0);
        expect(valuesOf(onB)).toEqual(['after ', 'Ada', 'Hello Ada']);

        expect(await new Executions(b.url).ended(id)).toMatchObject({
          status: 'completed',
          result: { value: 'Hello Ada' },
        });
        const again = await new Executions(b.url).answer(event.response_url, { type: 'text', text: 'Bob' });
        expect(again.status).toBe(400);

        // The whole log, read from the start on B: each frame once, the prompt once.
        const whole = await openStream(`${b.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': '0' },
        });
        await whole.end();
        expectNumbered(whole.frames);
        expect(whole.frames.filter((f) => f.event === 'interaction_required')).toHaveLength(1);
        expect(valuesOf(whole)).toEqual(['before ', 'the ', 'question', 'after ', 'Ada', 'Hello Ada']);
      });

      it('an answer posted while nobody runs it is accepted, and applied once after the takeover', async () => {
        const pause = await pausedOn(a, { input_message: 'Cy' });
        crash(a);
        const answered = await new Executions(b.url).answer(pause.response_url, { type: 'text', text: 'Cy' });
        expect(answered.status).toBe(204);
        const second = await new Executions(b.url).answer(pause.response_url, { type: 'text', text: 'Dee' });
        expect(second.status).toBe(400);

        const end = await new Executions(b.url).ended(pause.execution_id, CLAIM_WITHIN_MS + 2000);
        expect(end).toMatchObject({ status: 'completed', result: { value: 'Hello Cy' } });
        const whole = await openStream(`${b.url}/executions/${pause.execution_id}/stream`, {
          headers: { 'Last-Event-ID': '0' },
        });
        await whole.end();
        expect(whole.frames.filter((f) => f.event === 'interaction_required')).toHaveLength(1);
      });

      it('a wait A recorded but whose prompt never reached the log (A stopped in between): B publishes it as it takes over, and a client re-attached on B is asked', async () => {
        const onA = await openStream(`${a.url}/v1/workflow/stream`, { body: { input_message: 'Eve' } });
        const prompt = await onA.next((f) => f.event === 'interaction_required');
        const event = JSON.parse(prompt.data!) as InteractionEvent;
        const id = event.execution_id;
        onA.destroy();
        // What a replica stopped between recording the wait and publishing it leaves: the record says
        // it waits, the log (and its pinned prompts) has no prompt.
        const redis = a.app.get(BackingRedis);
        const key = `${redis.prefix}events:{${id}}`;
        const entries = await redis.client.xrange(key, '-', '+');
        const logged = entries.filter(([, fields]) =>
          fields.some((f) => f.includes('"interaction_required"')),
        );
        expect(logged.map(([entry]) => Number.parseInt(entry, 10))).toEqual([prompt.id]);
        // Written again without it (XDEL would leave the Stream's last id past it, which no replica does).
        await redis.client.del(key, `${key}:pinned`);
        for (const [entry, fields] of entries.filter((e) => !logged.includes(e))) {
          await redis.client.xadd(key, entry, ...fields);
        }

        const died = Date.now();
        crash(a);
        await claimedBy(replicas, b, id, died);
        // A client that saw everything before the prompt re-attaches on B: it is asked, with the same id.
        const onB = await openStream(`${b.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': String(prompt.id! - 1) },
        });
        const asked = await onB.next((f) => f.event === 'interaction_required');
        expect(JSON.parse(asked.data!)).toMatchObject({
          interaction_id: event.interaction_id,
          execution_id: id,
        });
        const answered = await new Executions(b.url).answer(event.response_url, {
          type: 'text',
          text: 'Eve',
        });
        expect(answered.status).toBe(204);
        await onB.end();
        expect(valuesOf(onB)).toEqual(['after ', 'Eve', 'Hello Eve']);
        const whole = await openStream(`${b.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': '0' },
        });
        await whole.end();
        expect(whole.frames.filter((f) => f.event === 'interaction_required')).toHaveLength(1);
      });

      it('a run handed over wakes only its own request: another still working on that replica answers with its own prompt (202)', async () => {
        await replicas.close();
        const steps = [
          '- step: { name: lookup, payload: found }',
          '- sleep: { seconds: 2 }',
          "- prompt: { input_type: text, text: 'Name?', save_as: name }",
        ].join('\n');
        replicas = await startReplicas(2, scriptedYaml(steps, 'Hi {{name}}'), {
          leaseSeconds: LONG_LEASE_SECONDS,
          // Written at its start: a record another replica can read, so a run that can be handed over.
          durableAfterSeconds: 0,
        });
        [a, b] = replicas.apps;
        const first = await pausedOn(a, { input_message: 'x' });
        const working = call('POST', `${a.url}/v1/workflow`, { input_message: 'y' });
        // The other run is in its sleep, its record written (the step was journaled) when the first is
        // handed over (as a replica whose lease renewal came late stops acting on some runs).
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(a.app.get(ExecutionRunner).abandon(new Set([first.execution_id]))).toEqual([
          first.execution_id,
        ]);
        const res = await working;
        expect({ status: res.status, prompt: (res.json as unknown as Pause).prompt }).toMatchObject({
          status: 202,
          prompt: { text: 'Name?' },
        });
      });

      it('a replica that stops gracefully hands its waiting execution over: another claims it at once and it completes', async () => {
        // A lease far longer than the test: only the handover can explain a quick claim.
        await replicas.close();
        replicas = await startReplicas(2, YAML, { leaseSeconds: LONG_LEASE_SECONDS });
        [a, b] = replicas.apps;

        const onA = await openStream(`${a.url}/v1/workflow/stream`, { body: { input_message: 'Eve' } });
        const prompt = await onA.next((f) => f.event === 'interaction_required');
        const event = JSON.parse(prompt.data!) as InteractionEvent;
        const id = event.execution_id;

        const stopping = Date.now();
        const closed = a.close();
        // A's stream ends without a terminal event, telling its client to re-attach.
        await onA.end();
        expect(onA.frames.some((f) => f.fields.retry === '1000')).toBe(true);
        expect(onA.frames.some((f) => ['completed', 'failed', 'cancelled'].includes(f.event ?? ''))).toBe(
          false,
        );
        await closed;
        replicas.apps.splice(0, 1);

        expect(await claimedBy(replicas, b, id, stopping, WAIT_MS)).toBeLessThan(LONG_LEASE_SECONDS * 1000);
        expect((await new Executions(b.url).status(id)).json).toMatchObject({
          status: 'interaction_required',
          interaction_id: event.interaction_id,
        });
        const resumed = await openStream(`${b.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': String(prompt.id) },
        });
        expect(
          (await new Executions(b.url).answer(event.response_url, { type: 'text', text: 'Eve' })).status,
        ).toBe(204);
        await resumed.end();
        expect(valuesOf(resumed)).toEqual(['after ', 'Eve', 'Hello Eve']);
      });
    });

    describe('a request that reaches a replica while it hands its runs over', () => {
      let replicas: Replicas;
      beforeAll(async () => {
        // A lease far longer than the test: only the release can explain a quick claim.
        replicas = await startReplicas(2, YAML, { leaseSeconds: LONG_LEASE_SECONDS });
      });
      afterAll(() => replicas.close());

      it('is accepted (202), recorded released, and run at once by another replica, where it is answered', async () => {
        const [a, b] = replicas.apps;
        await handOver(a);
        const asked = Date.now();
        const pause = await pausedOn(a, { input_message: 'Flo' });
        expect(await claimedBy(replicas, b, pause.execution_id, asked, WAIT_MS)).toBeLessThan(
          LONG_LEASE_SECONDS * 1000,
        );
        const answered = await new Executions(b.url).answer(pause.response_url, {
          type: 'text',
          text: 'Flo',
        });
        expect(answered.status).toBe(204);
        const end = await new Executions(b.url).ended(pause.execution_id);
        expect(end).toMatchObject({ status: 'completed', result: { value: 'Hello Flo' } });

        // A stream asked of A now ends at once with the hint to re-attach, and re-attaching on B works.
        const onA = await openStream(`${a.url}/v1/workflow/stream`, { body: { input_message: 'Gus' } });
        await onA.end();
        expect(onA.frames.some((f) => f.fields.retry === '1000')).toBe(true);
        const id = onA.headers['x-execution-id'] as string;
        await reattachAndAnswer(b, id, 'Gus');
      });
    });

    describe('a prompt whose record is still being written when its replica stops', () => {
      let replicas: Replicas;
      let a: TestApp;
      let b: TestApp;
      /** Resolves once A's next record write has begun; `letWrite` lets it go on. */
      let started: Promise<void>;
      let letWrite: () => void;
      beforeEach(async () => {
        // A lease far longer than the test: only the handover can explain a quick claim.
        replicas = await startReplicas(2, YAML, { leaseSeconds: LONG_LEASE_SECONDS });
        [a, b] = replicas.apps;
        // A's database is slow for its next write: the record is written while A stops.
        const store = a.app.get(ExecutionStore);
        const create = store.create.bind(store);
        let writing!: () => void;
        started = new Promise<void>((resolve) => (writing = resolve));
        const slow = new Promise<void>((resolve) => (letWrite = resolve));
        store.create = async (...args) => {
          writing();
          await slow;
          return create(...args);
        };
      });
      afterEach(() => replicas.close());

      it('is handed over with the others: the 202 its client gets is answered on another replica and completes', async () => {
        const asked = Date.now();
        const paused = pausedOn(a, { input_message: 'Ivy' });
        await started;
        const stopping = handOver(a);
        letWrite();
        const pause = await paused;
        await stopping;

        expect(await claimedBy(replicas, b, pause.execution_id, asked, WAIT_MS)).toBeLessThan(
          LONG_LEASE_SECONDS * 1000,
        );
        const answered = await new Executions(b.url).answer(pause.response_url, {
          type: 'text',
          text: 'Ivy',
        });
        expect(answered.status).toBe(204);
        expect(await new Executions(b.url).ended(pause.execution_id)).toMatchObject({
          status: 'completed',
          result: { value: 'Hello Ivy' },
        });
      });

      it('a stream started during that write is run by another replica: it ends with the hint to re-attach, and re-attached there it is asked', async () => {
        const opening = openStream(`${a.url}/v1/workflow/stream`, { body: { input_message: 'Jo' } });
        await started;
        const stopping = handOver(a);
        letWrite();
        const onA = await opening;
        await onA.end();
        await stopping;
        expect(onA.frames.some((f) => f.fields.retry === '1000')).toBe(true);
        const id = onA.headers['x-execution-id'] as string;
        await reattachAndAnswer(b, id, 'Jo');
      });
    });

    describe('a request waiting for the end on a replica that stops', () => {
      let replicas: Replicas;
      beforeAll(async () => {
        const slow = scriptedYaml(
          `- stream: { text: 'working' }\n- sleep: { seconds: 3 }`,
          'slept {{input}}',
        );
        // Written once it has run for a second (durable late); the stop comes after that point.
        replicas = await startReplicas(2, slow, { leaseSeconds: 60, durableAfterSeconds: 1 });
      });
      afterAll(() => replicas.close());

      it('gets its answer once the execution completes on the replica that took it over', async () => {
        const [a] = replicas.apps;
        const answer = call('POST', `${a.url}/v1/workflow`, { input_message: 'Zed' });
        await eventually(async () => {
          const client = new Client({ connectionString: process.env.DATABASE_URL });
          await client.connect();
          try {
            const { rows } = await client.query(
              `select id from ${replicas.services.schema}.execution_record where replica = $1`,
              [replicaOf(a)],
            );
            expect(rows).toHaveLength(1);
          } finally {
            await client.end();
          }
        });
        await a.close();
        replicas.apps.splice(0, 1);
        const res = await answer;
        expect(res.status).toBe(200);
        expect(res.json).toEqual({ value: 'slept Zed' });
      });
    });

    describe('a tool_calling_agent paused in ask_confirmation', () => {
      const CONFIRM = { id: 'yes', label: 'Yes', value: 'yes' };
      let llm: FakeLlm;
      let replicas: Replicas;
      beforeAll(async () => {
        llm = await FakeLlm.start();
        const functions = {
          ask_confirmation: { _type: 'ask_confirmation' },
          current_datetime: { _type: 'current_datetime' },
        };
        const workflow = { _type: 'tool_calling_agent', tool_names: Object.keys(functions) };
        replicas = await startReplicas(2, agentYaml(llm, workflow, functions), {
          leaseSeconds: LEASE_SECONDS,
        });
      });
      afterAll(async () => {
        await replicas.close();
        await llm.close();
      });

      it('B replays it from the journal (no model call repeated) and completes it with its answer', async () => {
        const [a, b] = replicas.apps;
        llm.script(
          reply.tools([{ name: 'current_datetime', arguments: {} }]),
          reply.tools([
            { name: 'ask_confirmation', arguments: { question: 'Book the room?', target_tool: 'book' } },
          ]),
          reply.text('Booked.'),
        );
        const pause = await pausedOn(a, { input_message: 'Book the room' });
        expect(llm.requests).toHaveLength(2);
        const time = llm.lastMessage(1).content;

        const died = Date.now();
        crash(a);
        await claimedBy(replicas, b, pause.execution_id, died);
        expect((await new Executions(b.url).status(pause.execution_id)).json).toMatchObject({
          status: 'interaction_required',
          interaction_id: pause.interaction_id,
        });
        expect(llm.requests).toHaveLength(2);

        const answered = await new Executions(b.url).answer(pause.response_url, {
          type: 'radio',
          selected_option: CONFIRM,
        });
        expect(answered.status).toBe(204);
        const end = await new Executions(b.url).ended(pause.execution_id);
        expect(end).toMatchObject({ status: 'completed', result: { value: 'Booked.' } });

        // Three model calls in all, each once; the replayed tools gave the model what they gave it first.
        expect(llm.requests).toHaveLength(3);
        const last = llm.requests[2].body.messages;
        const [clock, confirmation] = last.filter((m) => m.role === 'tool').map((m) => m.content!);
        expect(clock).toBe(time);
        expect(JSON.parse(confirmation)).toEqual({
          interaction_id: pause.interaction_id,
          selected_option_id: 'yes',
          free_text: null,
          confirmed: true,
          cancelled: false,
        });
        const again = await new Executions(b.url).answer(pause.response_url, {
          type: 'radio',
          selected_option: CONFIRM,
        });
        expect(again.status).toBe(400);
        expect(llm.pending).toBe(0);
      });
    });
  });
});
