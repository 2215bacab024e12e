import { Executions, call } from '../utils/hitl';
import { type InteractionEvent, YAML, expectNumbered, valuesOf } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';

/** Two servers sharing one Postgres and one Redis (`general.executions.store: postgres`). */
requires('postgres')('Two replicas, one execution', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    let a: string;
    let b: string;
    beforeAll(async () => {
      replicas = await startReplicas(2, YAML);
      [a, b] = replicas.apps.map((app) => app.url);
    });
    afterAll(() => replicas.close());

    it('started on A, polled, answered and re-attached on B: A resumes and B streams every later frame once', async () => {
      const onA = await openStream(`${a}/v1/workflow/stream`, { body: { input_message: 'Ann' } });
      const prompt = await onA.next((f) => f.event === 'interaction_required');
      const event = JSON.parse(prompt.data!) as InteractionEvent;
      const id = event.execution_id;

      const polled = await new Executions(b).status(id);
      expect(polled.status).toBe(200);
      expect(polled.json).toMatchObject({
        status: 'interaction_required',
        interaction_id: event.interaction_id,
      });

      // B follows the stream A writes, from the prompt on, while nothing has happened after it yet.
      const onB = await openStream(`${b}/executions/${id}/stream`, {
        headers: { 'Last-Event-ID': String(prompt.id) },
      });
      expect(onB.status).toBe(200);
      expect(onB.headers['x-execution-id']).toBe(id);

      const answered = await new Executions(b).answer(event.response_url, { type: 'text', text: 'Ada' });
      expect(answered.status).toBe(204);

      // A's workflow resumed at once: its own stream goes on to the end…
      await onA.end();
      expect(valuesOf(onA)).toEqual(['before ', 'the ', 'question', 'after ', 'Ada', 'Hello Ada']);
      // …and B got exactly the frames after the prompt, each once, as A sent them.
      await onB.end();
      const ids = expectNumbered(onB.frames);
      expect(ids[0]).toBeGreaterThan(prompt.id!);
      const afterPromptOnA = onA.frames.filter((f) => f.id !== undefined && f.id > prompt.id!);
      expect(onB.frames.filter((f) => !f.comment).map((f) => f.raw)).toEqual(
        afterPromptOnA.map((f) => f.raw),
      );
      expect(valuesOf(onB)).toEqual(['after ', 'Ada', 'Hello Ada']);

      // Both replicas see it completed; a second answer, on either, is refused.
      for (const url of [a, b]) {
        expect((await new Executions(url).status(id)).json).toMatchObject({ status: 'completed' });
        expect(
          (await new Executions(url).answer(event.response_url, { type: 'text', text: 'Bob' })).status,
        ).toBe(400);
      }
    });

    it('re-attaching on B after the end replays what was missed from the shared log, then ends', async () => {
      const onA = await openStream(`${a}/v1/workflow/stream`, { body: { input_message: 'Cy' } });
      const prompt = await onA.next((f) => f.event === 'interaction_required');
      const event = JSON.parse(prompt.data!) as InteractionEvent;
      onA.destroy();
      expect((await new Executions(b).answer(event.response_url, { type: 'text', text: 'Cy' })).status).toBe(
        204,
      );
      const ended = await new Executions(b).ended(event.execution_id);
      expect(ended.status).toBe('completed');

      const resumed = await openStream(`${b}/executions/${event.execution_id}/stream`, {
        headers: { 'Last-Event-ID': String(prompt.id! - 1) },
      });
      await resumed.end();
      expectNumbered(resumed.frames);
      expect(resumed.frames[0].id).toBe(prompt.id);
      expect(resumed.frames[0].event).toBe('interaction_required');
      expect(valuesOf(resumed)).toEqual(['after ', 'Cy', 'Hello Cy']);
    });

    it('cancelled on B while it waits on A: 204, the record says so at once, and A ends its stream', async () => {
      const onA = await openStream(`${a}/v1/workflow/stream`, { body: { input_message: 'Dee' } });
      const event = await onA.nextEvent<InteractionEvent>('interaction_required');
      const id = event.execution_id;
      expect((await new Executions(b).cancel(id)).status).toBe(204);
      expect((await new Executions(b).status(id)).json).toMatchObject({ status: 'failed' });
      await onA.end();
      expect(valuesOf(onA)).toEqual(['before ', 'the ', 'question']);
      expect((await new Executions(a).cancel(id)).status).toBe(409);
      expect((await new Executions(b).answer(event.response_url, { type: 'text', text: 'x' })).status).toBe(
        400,
      );
    });

    it('an answer larger than a wake-up carries is refused with 413 naming the limit; the execution still waits, and a smaller answer resumes it', async () => {
      const onA = await openStream(`${a}/v1/workflow/stream`, { body: { input_message: 'Eve' } });
      const event = await onA.nextEvent<InteractionEvent>('interaction_required');
      const huge = await new Executions(b).answer(event.response_url, {
        type: 'text',
        text: 'x'.repeat(5 * 1024 * 1024),
      });
      expect(huge.status).toBe(413);
      expect(huge.json).toEqual({ detail: expect.stringMatching(/at most 4,194,0\d\d characters/) });
      expect((await new Executions(b).status(event.execution_id)).json).toMatchObject({
        status: 'interaction_required',
        interaction_id: event.interaction_id,
      });
      expect((await new Executions(b).answer(event.response_url, { type: 'text', text: 'Eve' })).status).toBe(
        204,
      );
      await onA.end();
      expect(valuesOf(onA)).toEqual(['before ', 'the ', 'question', 'after ', 'Eve', 'Hello Eve']);
    });

    it('an unknown execution is 404 on every replica', async () => {
      for (const url of [a, b]) {
        const unknown = `${url}/executions/00000000-0000-4000-8000-000000000000`;
        expect((await call('GET', `${unknown}/stream`)).status).toBe(404);
        expect((await call('DELETE', unknown)).status).toBe(404);
      }
    });

    it('/health/ready reports Postgres and Redis on each replica', async () => {
      for (const url of [a, b]) {
        const res = await call('GET', `${url}/health/ready`);
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ checks: { executions: 'ok', database: 'ok', redis: 'ok' } });
      }
    });
  });
});
