import { randomBytes } from 'node:crypto';
import { isFinal, type JobStatus } from '../../src/jobs/job-record';
import { startWorker, stopWorkers, type WorkerProcess } from '../utils/jobs-workers';
import { holdMachineLock } from '../utils/machine-lock';
import { ReplicaProcesses, type Response } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml } from '../utils/test-app';
import { START_MS } from '../utils/timing';

/**
 * Async jobs while PostgreSQL, where their rows are, goes away and comes back (issue 31): a TCP proxy
 * between the replicas and the machine's PostgreSQL cuts every connection and refuses new ones, as a
 * restart or fail-over does. Jobs run in the server that took them (`general.async.queue: in_process`),
 * then on an `interlude worker` through BullMQ over Redis (`queue: redis`), whose rows are behind the proxy too.
 * Needs `npm run build`.
 */
const SLEEP_SECONDS = 6;
const SLOW = scriptedYaml(`- sleep: { seconds: ${SLEEP_SECONDS} }`, 'done {{input}}');
const OUTAGE_MS = 20_000;
const ALICE = { authorization: 'Bearer nvapi-faults-jobs' };
const JOBS = '/v1/workflow/async';

const outage = (res: Response) => ({
  status: res.status,
  retryAfter: res.headers.get('retry-after'),
  body: res.status === 503 ? 'answered' : res.text,
});
const OUTAGE = { status: 503, retryAfter: expect.stringMatching(/^\d+$/), body: 'answered' };

/**
 * Two replicas (and `worker`: one `interlude worker` on their config) whose way to PostgreSQL goes
 * through a proxy; `async` is merged into their `general.async`.
 */
function throughOutage(async: Record<string, unknown>, worker: boolean) {
  let proxy: TcpProxy;
  let set: ReplicaProcesses;
  let runner: WorkerProcess | undefined;

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    set = await ReplicaProcesses.start(2, SLOW, {
      general: { executions: { lease_seconds: 5 }, async: { max_concurrent_jobs: 1, ...async } },
      dbUrl: (url) => proxy.via(url),
    });
    if (worker) runner = await startWorker(set.configFile, 'w1');
  }, 4 * START_MS);

  afterAll(async () => {
    await stopWorkers();
    await set?.close();
    await proxy?.close();
  });

  it(
    'a job that ends during the outage keeps its result, new jobs and polls get 503 with Retry-After, and jobs work again once it is back',
    async () => {
      const before = await set.request('POST', JOBS, {
        body: { input_message: 'before', job_id: 'before' },
        headers: ALICE,
        to: 0,
      });
      expect({ status: before.status, body: before.text }).toEqual({
        status: 202,
        body: expect.stringContaining('"before"'),
      });
      await set.until(`${JOBS}/job/before`, 0, (r) => r.json.status === 'running', { headers: ALICE });
      // One job runs at a time (max_concurrent_jobs: 1): this one waits for "before"'s slot, which
      // frees while PostgreSQL is away, so its start is written during the outage.
      const queued = await set.request('POST', JOBS, {
        body: { input_message: 'queued', job_id: 'queued' },
        headers: ALICE,
        to: 0,
      });
      expect(queued.status).toBe(202);

      proxy.refuse();
      proxy.cut();
      const outageStarted = Date.now();

      // A job submitted now is refused whole: 503 with Retry-After, never a 500 or a hang.
      const during = await set.request('POST', JOBS, {
        body: { input_message: 'during', job_id: 'during' },
        headers: ALICE,
        to: 1,
      });
      expect(outage(during)).toEqual(OUTAGE);
      // So is a poll, on the replica that runs the job and on the other.
      for (const to of [0, 1]) {
        expect(outage(await set.request('GET', `${JOBS}/job/before`, { headers: ALICE, to }))).toEqual(
          OUTAGE,
        );
      }

      // The job's sleep ends while PostgreSQL is still away.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))),
      );
      expect(Date.now() - outageStarted).toBeGreaterThan(SLEEP_SECONDS * 1000);
      proxy.heal();
      for (const to of [0, 1])
        await set.until('/health/ready', to, (r) => r.status === 200, { within: START_MS });

      // The job's end was recorded once PostgreSQL was back: its output is not lost.
      const ended = await set.until(`${JOBS}/job/before`, 1, (r) => r.json.status !== 'running', {
        headers: ALICE,
      });
      // A worker's log names what it did with the job, when it went wrong.
      const log = ended.json.status === 'success' ? undefined : runner?.output();
      expect({ status: ended.status, job: ended.json, log }).toEqual({
        status: 200,
        log: undefined,
        job: expect.objectContaining({
          job_id: 'before',
          status: 'success',
          output: { value: 'done before' },
        }),
      });
      // The job whose turn came during the outage started once it was back, and ran to its end.
      const second = await set.until(`${JOBS}/job/queued`, 1, (r) => isFinal(r.json.status as JobStatus), {
        headers: ALICE,
        within: START_MS,
      });
      expect(second.json).toEqual(
        expect.objectContaining({ job_id: 'queued', status: 'success', output: { value: 'done queued' } }),
      );
      // Nothing of the refused job was written.
      const refused = await set.request('GET', `${JOBS}/job/during`, { headers: ALICE, to: 0 });
      expect(refused.status).toBe(404);

      // New jobs work without a restart, and no replica exited.
      const after = await set.request('POST', JOBS, {
        body: { input_message: 'after', job_id: 'after' },
        headers: ALICE,
        to: 1,
      });
      expect(after.status).toBe(202);
      const done = await set.until(`${JOBS}/job/after`, 0, (r) => r.json.status === 'success', {
        headers: ALICE,
        within: START_MS,
      });
      expect(done.json).toEqual(
        expect.objectContaining({ job_id: 'after', status: 'success', output: { value: 'done after' } }),
      );
      expect(set.exited()).toEqual([]);
      expect(runner?.child.exitCode ?? null).toBeNull();
    },
    OUTAGE_MS + 6 * START_MS,
  );
}

requires('postgres')('async jobs while PostgreSQL is unreachable', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('jobs in the server, rows in PostgreSQL', () => throughOutage({}, false));
  requires('redis')('jobs on a worker through BullMQ over Redis, rows in PostgreSQL', () =>
    throughOutage(
      {
        queue: 'redis',
        queue_name: 'jobs',
        queue_prefix: `faults_${randomBytes(4).toString('hex')}`,
        lock_duration_seconds: 5,
        cancel_check_seconds: 1,
      },
      true,
    ),
  );
});
