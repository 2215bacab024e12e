import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heldResponses } from '../utils/held-responses';
import { ALICE, BOB, jobsAt, jsonCall } from '../utils/jobs-client';
import { isolatedStores, startWorker, stopWorkers } from '../utils/jobs-workers';
import { deleteKeys } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { eventually, startApp, type TestApp } from '../utils/test-app';

/**
 * A server and one `interlude worker` on the shared store (`general.executions.store: postgres`), so
 * the worker's jobs may wait for a person: the answer, posted to the server, reaches the worker.
 */
requires('postgres')('async jobs on a worker, with the shared store', () => {
  requires('redis')('BullMQ on Redis', () => {
    let stores: ReturnType<typeof isolatedStores>;
    let dir: string;
    let t: TestApp | undefined;
    let g: Awaited<ReturnType<typeof heldResponses>>;
    beforeAll(async () => {
      stores = isolatedStores(process.env.DATABASE_URL!);
      dir = mkdtempSync(join(tmpdir(), 'interlude-worker-slots-'));
      g = await heldResponses();
    });
    afterEach(async () => {
      await stopWorkers();
      await t?.close();
      t = undefined;
    });
    afterAll(async () => {
      await g?.close();
      await stores?.drop();
      await deleteKeys(process.env.REDIS_URL!, `${stores.prefix}*`);
      rmSync(dir, { recursive: true, force: true });
    });

    async function cluster(name: string, async: string, steps: string) {
      const yaml = `general:
  db_url: '${stores.dbUrl}'
  outbound: { allow_hosts: [127.0.0.1] }
  executions:
    store: postgres
    redis_url: '${process.env.REDIS_URL}'
    redis_key_prefix: '${stores.prefix}_${name}:'
  async:
    queue: redis
    queue_name: jobs
    queue_prefix: ${stores.prefix}_${name}
    cancel_check_seconds: 0.2
${async}
workflow:
  _type: scripted
  steps:
${steps}
  output: 'done {{input}}'
`;
      const file = join(dir, `${name}.yml`);
      writeFileSync(file, yaml);
      t = await startApp(yaml);
      await startWorker(file, 'w1');
      return t;
    }

    it("one user's jobs waiting for a person hold no slot of the worker: another user's job runs; each finishes after its answer, given at the server", async () => {
      const server = await cluster(
        'waits',
        '    max_concurrent_jobs: 1',
        "    - prompt: { input_type: text, text: 'Name?', save_as: name }",
      );
      const alice = jobsAt(server.url, '/v1/workflow', ALICE);
      const bob = jobsAt(server.url, '/v1/workflow', BOB);
      for (const id of ['a1', 'a2']) await alice.submit({ input_message: id, job_id: id });
      const waiting = [];
      for (const id of ['a1', 'a2']) waiting.push(await alice.until(id, 'interaction_required', 20_000));
      await bob.submit({ input_message: 'b1', job_id: 'b1' });
      const bobs = await bob.until('b1', 'interaction_required', 20_000);

      const answer = (job: Record<string, unknown>, headers: Record<string, string>) =>
        jsonCall(
          'POST',
          `${server.url}${String(job.response_url)}`,
          { response: { type: 'text', text: 'x' } },
          headers,
        );
      expect((await answer(bobs, BOB)).status).toBe(204);
      expect((await bob.until('b1', 'success', 20_000)).output).toEqual({ value: 'done b1' });
      for (const job of waiting) expect((await answer(job, ALICE)).status).toBe(204);
      for (const id of ['a1', 'a2']) {
        expect((await alice.until(id, 'success', 20_000)).output).toEqual({ value: `done ${id}` });
      }
    }, 90_000);

    it("a user's job past their share goes back to the queue, saying why, while another user's job runs on the worker", async () => {
      const server = await cluster(
        'share',
        '    max_concurrent_jobs: 3\n    max_running_jobs_per_user: 1',
        `    - fetch: { url: '${g.url}/run?i={{input}}' }`,
      );
      const alice = jobsAt(server.url, '/v1/workflow', ALICE);
      const bob = jobsAt(server.url, '/v1/workflow', BOB);
      await alice.submit({ input_message: 'wa1', job_id: 'wa1' });
      await eventually(() => expect(g.has('wa1')).toBe(true), 20_000);
      await alice.submit({ input_message: 'wa2', job_id: 'wa2' });
      const held = await eventually(async () => {
        const { body } = await alice.status('wa2');
        expect(body).toMatchObject({
          status: 'submitted',
          waiting_reason: expect.stringContaining('max_running_jobs_per_user'),
        });
        return body;
      }, 20_000);
      expect(held.status).toBe('submitted');
      await bob.submit({ input_message: 'wb1', job_id: 'wb1' });
      await eventually(() => expect(g.has('wb1')).toBe(true), 20_000);
      expect(g.has('wa2')).toBe(false);

      g.release('wa1');
      await eventually(() => expect(g.has('wa2')).toBe(true), 20_000);
      for (const id of ['wa2', 'wb1']) g.release(id);
      for (const [jobs, id] of [
        [alice, 'wa1'],
        [alice, 'wa2'],
        [bob, 'wb1'],
      ] as const) {
        expect((await jobs.until(id, 'success', 20_000)).output).toEqual({ value: `done ${id}` });
      }
    }, 90_000);
  });
});
