import { type InteractionEvent, YAML, expectNumbered, valuesOf } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { scriptedYaml } from '../utils/test-app';
import { holdMachineLock } from '../utils/machine-lock';

/**
 * Three `interlude serve` processes on one Postgres schema and one Redis prefix, and a client that
 * sends each request to the next one. Needs `npm run build`.
 *
 * The HTTP interactive face here; the WebSocket, AG-UI and OAuth faces across processes (and a replica
 * stopped or killed under them) are in replicas-process-faces.e2e-spec.ts, /monitor/users and the
 * waiting limits across replicas in replicas-limits.e2e-spec.ts.
 */
const TWO_PROMPTS = scriptedYaml(
  `- prompt: { input_type: text, text: 'Name?', save_as: name }
- prompt: { input_type: radio, text: 'Colour?', options: [{ id: r, label: Red, value: red }, { id: b, label: Blue, value: blue }], save_as: colour }`,
  '{{name}} likes {{colour}} ({{input}})',
);
const USERS = 300;

interface Pause {
  execution_id: string;
  interaction_id: string;
  response_url: string;
  status_url: string;
}

const text = (t: string) => ({ response: { type: 'text', text: t } });
const asUser = (n: number) => ({ authorization: `Bearer nvapi-replica-user-${n}` });

/** Runs `fn` for 0..count-1, `width` at a time. */
async function inPool(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

requires('postgres')('Three server processes, one store, a round-robin client', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store', () => {
    let replicas: ReplicaProcesses;
    jest.setTimeout(60_000);

    beforeAll(async () => {
      replicas = await ReplicaProcesses.start(3, `${TWO_PROMPTS}`);
    }, 60_000);
    afterAll(async () => {
      await replicas?.close();
    });

    /** Polls (round-robin) until `check` holds for the status body, or fails with every replica's output. */
    async function pollUntil(
      id: string,
      headers: Record<string, string>,
      check: (json: Record<string, unknown>) => boolean,
      timeoutMs = 15_000,
    ): Promise<Record<string, unknown>> {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      for (;;) {
        const res = await replicas.request('GET', `/executions/${id}`, { headers });
        if (res.status >= 500)
          throw new Error(`${res.status} from replica ${res.replica}\n${replicas.output()}`);
        if (res.status === 200 && check(res.json)) return res.json;
        last = { status: res.status, body: res.json };
        if (Date.now() > deadline)
          throw new Error(
            `execution ${id} never got there; last ${JSON.stringify(last)}\n${replicas.output()}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }

    it('started on A, polled on B, answered on C: 204, and it completes with the answers', async () => {
      const started = await replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'rr' },
        to: 0,
      });
      expect(started.status).toBe(202);
      const first = started.json as unknown as Pause;

      const polled = await replicas.request('GET', first.status_url, { to: 1 });
      expect(polled.json).toMatchObject({
        status: 'interaction_required',
        interaction_id: first.interaction_id,
      });

      expect((await replicas.request('POST', first.response_url, { body: text('Ada'), to: 2 })).status).toBe(
        204,
      );
      const second = (await pollUntil(
        first.execution_id,
        {},
        (j) => j.status === 'interaction_required' && j.interaction_id !== first.interaction_id,
      )) as unknown as Pause;
      const answered = await replicas.request('POST', second.response_url, {
        body: { response: { type: 'radio', selected_option: { id: 'b' } } },
      });
      expect(answered.status).toBe(204);

      expect(await pollUntil(first.execution_id, {}, (j) => j.status === 'completed')).toEqual({
        execution_id: first.execution_id,
        status: 'completed',
        result: { value: 'Ada likes blue (rr)' },
      });
      // Every replica agrees, and refuses a second answer.
      for (let i = 0; i < 3; i++) {
        expect((await replicas.request('GET', first.status_url, { to: i })).json).toMatchObject({
          status: 'completed',
        });
        expect(
          (await replicas.request('POST', second.response_url, { body: text('again'), to: i })).status,
        ).toBe(400);
      }
    });

    it('cancelled on B while it waits on A: 204, C reports it cancelled, an answer on A is 400', async () => {
      const started = await replicas.request('POST', '/v1/workflow', { body: { input_message: 'c' }, to: 0 });
      const pause = started.json as unknown as Pause;
      expect((await replicas.request('DELETE', pause.status_url, { to: 1 })).status).toBe(204);
      expect((await replicas.request('GET', pause.status_url, { to: 2 })).json).toMatchObject({
        status: 'failed',
        error: 'Execution cancelled',
      });
      expect((await replicas.request('POST', pause.response_url, { body: text('late'), to: 0 })).status).toBe(
        400,
      );
      expect((await replicas.request('DELETE', pause.status_url, { to: 2 })).status).toBe(409);
    });

    it(`${USERS} users across the three replicas, answered round-robin: each gets its own answer, and no one else's execution`, async () => {
      const pauses: Pause[] = [];
      await inPool(USERS, 30, async (n) => {
        const res = await replicas.request('POST', '/v1/workflow', {
          body: { input_message: `in-${n}` },
          headers: asUser(n),
        });
        expect({ n, status: res.status }).toEqual({ n, status: 202 });
        pauses[n] = res.json as unknown as Pause;
      });
      expect(new Set(pauses.map((p) => p.execution_id)).size).toBe(USERS);

      await inPool(USERS, 30, async (n) => {
        const p = pauses[n];
        // The next user sees nothing of it, on any replica: 404, and the answer changes nothing.
        const other = asUser((n + 1) % USERS);
        expect((await replicas.request('GET', p.status_url, { headers: other })).status).toBe(404);
        expect(
          (await replicas.request('POST', p.response_url, { body: text('intruder'), headers: other })).status,
        ).toBe(404);

        const first = await replicas.request('POST', p.response_url, {
          body: text(`name-${n}`),
          headers: asUser(n),
        });
        expect({ n, status: first.status }).toEqual({ n, status: 204 });
        const second = (await pollUntil(
          p.execution_id,
          asUser(n),
          (j) => j.status === 'interaction_required' && j.interaction_id !== p.interaction_id,
        )) as unknown as Pause;
        const colour = n % 2 ? 'r' : 'b';
        const answered = await replicas.request('POST', second.response_url, {
          body: { response: { type: 'radio', selected_option: { id: colour } } },
          headers: asUser(n),
        });
        expect({ n, status: answered.status }).toEqual({ n, status: 204 });
      });

      await inPool(USERS, 30, async (n) => {
        const done = await pollUntil(pauses[n].execution_id, asUser(n), (j) => j.status === 'completed');
        expect(done.result).toEqual({ value: `name-${n} likes ${n % 2 ? 'red' : 'blue'} (in-${n})` });
      });
    }, 110_000);

    it('a replica restarted on the same store sees its old executions, and an answer there resumes the one waiting elsewhere', async () => {
      const done = (await replicas.request('POST', '/v1/workflow', { body: { input_message: 'old' }, to: 0 }))
        .json as unknown as Pause;
      await replicas.request('POST', done.response_url, { body: text('Old'), to: 0 });
      const second = (await pollUntil(
        done.execution_id,
        {},
        (j) => j.status === 'interaction_required' && j.interaction_id !== done.interaction_id,
      )) as unknown as Pause;
      await replicas.request('POST', second.response_url, {
        body: { response: { type: 'radio', selected_option: { id: 'r' } } },
        to: 0,
      });
      await pollUntil(done.execution_id, {}, (j) => j.status === 'completed');
      const waiting = (
        await replicas.request('POST', '/v1/workflow', { body: { input_message: 'w' }, to: 1 })
      ).json as unknown as Pause;

      await replicas.kill(0, 'SIGTERM');
      await replicas.restart(0);

      expect((await replicas.request('GET', done.status_url, { to: 0 })).json).toEqual({
        execution_id: done.execution_id,
        status: 'completed',
        result: { value: 'Old likes red (old)' },
      });
      expect((await replicas.request('GET', waiting.status_url, { to: 0 })).json).toMatchObject({
        status: 'interaction_required',
        interaction_id: waiting.interaction_id,
      });
      expect(
        (await replicas.request('POST', waiting.response_url, { body: text('New'), to: 0 })).status,
      ).toBe(204);
      expect(
        await pollUntil(
          waiting.execution_id,
          {},
          (j) => j.status === 'interaction_required' && j.interaction_id !== waiting.interaction_id,
        ),
      ).toMatchObject({ status: 'interaction_required' });
    });
  });
});

requires('postgres')('Three server processes streaming one execution', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store', () => {
    let replicas: ReplicaProcesses;

    beforeAll(async () => {
      replicas = await ReplicaProcesses.start(3, YAML);
    }, 60_000);
    afterAll(async () => {
      await replicas?.close();
    });

    it('streamed from A, re-attached on B with Last-Event-ID, answered on C: B gets every later frame exactly once', async () => {
      const onA = await openStream(`${replicas.url(0)}/v1/workflow/stream`, {
        body: { input_message: 'Ann' },
      });
      const prompt = await onA.next((f) => f.event === 'interaction_required');
      const event = JSON.parse(prompt.data!) as InteractionEvent;

      const onB = await openStream(`${replicas.url(1)}/executions/${event.execution_id}/stream`, {
        headers: { 'Last-Event-ID': String(prompt.id) },
      });
      expect(onB.status).toBe(200);
      expect(onB.headers['x-execution-id']).toBe(event.execution_id);

      const answered = await replicas.request('POST', event.response_url, { body: text('Ada'), to: 2 });
      expect(answered.status).toBe(204);

      await onA.end();
      expect(valuesOf(onA)).toEqual(['before ', 'the ', 'question', 'after ', 'Ada', 'Hello Ada']);
      await onB.end();
      const ids = expectNumbered(onB.frames);
      expect(ids[0]).toBeGreaterThan(prompt.id!);
      const laterOnA = onA.frames.filter((f) => f.id !== undefined && f.id > prompt.id!);
      expect(onB.frames.filter((f) => !f.comment).map((f) => f.raw)).toEqual(laterOnA.map((f) => f.raw));
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('re-attached on C after the end from an earlier id: the missed frames, once, then the end', async () => {
      const onA = await openStream(`${replicas.url(0)}/v1/workflow/stream`, {
        body: { input_message: 'Cy' },
      });
      const prompt = await onA.next((f) => f.event === 'interaction_required');
      const event = JSON.parse(prompt.data!) as InteractionEvent;
      expect((await replicas.request('POST', event.response_url, { body: text('Cy'), to: 1 })).status).toBe(
        204,
      );
      await onA.end();

      const resumed = await openStream(`${replicas.url(2)}/executions/${event.execution_id}/stream`, {
        headers: { 'Last-Event-ID': String(prompt.id! - 1) },
      });
      await resumed.end();
      const ids = expectNumbered(resumed.frames);
      expect(ids[0]).toBe(prompt.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(valuesOf(resumed)).toEqual(['after ', 'Cy', 'Hello Cy']);
    });
  });
});
