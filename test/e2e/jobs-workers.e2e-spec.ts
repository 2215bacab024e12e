import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { jobsAt } from '../utils/jobs-client';
import { isolatedStores, runLog, startWorker, stopWorkers, type RunLog } from '../utils/jobs-workers';
import { requires } from '../utils/requires';
import { stopServersAfterEach } from '../utils/cli';
import { eventually, startApp, type TestApp } from '../utils/test-app';
import { holdMachineLock } from '../utils/machine-lock';

/** The config the server and the workers share; each worker's WORKER_NAME shows in what it ran. */
function workerYaml(
  queue: 'redis' | 'postgres',
  dbUrl: string,
  prefix: string,
  log: string,
  sleep: number,
  extraStep = '',
) {
  return `general:
  db_url: '${dbUrl}'
  outbound: { allow_hosts: [127.0.0.1] }
  async:
    queue: ${queue}
    queue_name: jobs
    queue_prefix: ${prefix}
    lock_duration_seconds: 2
    stalled_interval_seconds: 1
    cancel_check_seconds: 0.2
workflow:
  _type: scripted
  steps:
    - fetch: { url: '${log}/ran?w=\${WORKER_NAME:-server}&i={{input}}' }
    - sleep: { seconds: ${sleep} }${extraStep}
    - fetch: { url: '${log}/end?w=\${WORKER_NAME:-server}&i={{input}}' }
  output: 'done {{input}} by \${WORKER_NAME:-server}'
`;
}

function scaleOut(queue: 'redis' | 'postgres') {
  let stores: ReturnType<typeof isolatedStores>;
  let dir: string;
  let log: RunLog;
  let t: TestApp | undefined;
  stopServersAfterEach();

  beforeAll(async () => {
    stores = isolatedStores(process.env.DATABASE_URL!);
    dir = mkdtempSync(join(tmpdir(), 'interlude-workers-'));
    log = await runLog();
  });
  afterEach(async () => {
    await stopWorkers();
    await t?.close();
    t = undefined;
  });
  afterAll(async () => {
    await log?.close();
    await stores?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cluster(sleep: number, extraStep = '', name = String(sleep)) {
    const yaml = workerYaml(queue, stores.dbUrl, `${stores.prefix}_${name}`, log.url, sleep, extraStep);
    const file = join(dir, `interlude-${name}.yml`);
    writeFileSync(file, yaml);
    t = await startApp(yaml);
    const workers = await Promise.all([startWorker(file, 'w1'), startWorker(file, 'w2')]);
    return { jobs: jobsAt(t.url), workers };
  }

  it('two workers share 200 jobs; each job runs once and ends success', async () => {
    const { jobs } = await cluster(0);
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const n = batch * 20 + i;
          return jobs
            .submit({ input_message: `n${n}`, job_id: `n${n}` })
            .then((r) => expect(r.status).toBe(202));
        }),
      );
    }
    await eventually(() => expect(log.runs.length).toBeGreaterThanOrEqual(200), 60_000, 100);
    const byInput = new Map<string, number>();
    for (const run of log.runs) byInput.set(run.input, (byInput.get(run.input) ?? 0) + 1);
    expect(byInput.size).toBe(200);
    expect([...byInput.values()].every((count) => count === 1)).toBe(true);
    const perWorker = new Set(log.runs.map((r) => r.worker));
    expect([...perWorker].sort()).toEqual(['w1', 'w2']);
    for (let n = 0; n < 200; n++) {
      const done = await jobs.until(`n${n}`, 'success', 10_000);
      expect(done.output).toEqual({ value: expect.stringMatching(new RegExp(`^done n${n} by w[12]$`)) });
    }
  }, 120_000);

  it('a worker killed mid-job: the job runs again on the other one and ends success', async () => {
    log.runs.length = 0;
    const { jobs, workers } = await cluster(3);
    expect((await jobs.submit({ input_message: 'slow', job_id: 'slow' })).status).toBe(202);
    const first = await eventually(() => {
      expect(log.runs).toHaveLength(1);
      return log.runs[0].worker;
    }, 20_000);
    expect((await jobs.status('slow')).body.status).toBe('running');
    workers.find((w) => w.name === first)!.child.kill('SIGKILL');
    const other = first === 'w1' ? 'w2' : 'w1';
    const done = await jobs.until('slow', 'success', 30_000);
    expect(done.output).toEqual({ value: `done slow by ${other}` });
    expect(log.runs.map((r) => r.worker)).toEqual([first, other]);
  }, 60_000);

  it('a worker stopped with SIGTERM finishes the job it runs, then exits', async () => {
    log.runs.length = 0;
    const { jobs, workers } = await cluster(3, '', 'term');
    await jobs.submit({ input_message: 'finish-me', job_id: 'finish-me' });
    const first = await eventually(() => {
      expect(log.runs).toHaveLength(1);
      return log.runs[0].worker;
    }, 20_000);
    const worker = workers.find((w) => w.name === first)!;
    const exited = new Promise<string>((r) =>
      worker.child.once('exit', (code, signal) => r(String(code ?? signal))),
    );
    worker.child.kill('SIGTERM');
    const done = await jobs.until('finish-me', 'success', 20_000);
    expect(done.output).toEqual({ value: `done finish-me by ${first}` });
    // Nest re-raises the signal once the app has closed.
    expect(['0', 'SIGTERM']).toContain(await exited);
    expect(log.runs).toHaveLength(1);
  }, 60_000);

  it('a cancelled job is stopped on its worker and stays interrupted', async () => {
    log.runs.length = 0;
    log.ends.length = 0;
    const { jobs } = await cluster(3);
    await jobs.submit({ input_message: 'stop-me', job_id: 'stop-me' });
    await eventually(() => expect(log.runs).toHaveLength(1), 20_000);
    expect((await jobs.cancel('stop-me')).body).toMatchObject({ status: 'interrupted', error: 'cancelled' });
    // The worker learns of it from the row and stops the run: it never reaches its last step, though a
    // job submitted after it (as long) does.
    const queued = await jobs.submit({ input_message: 'after', job_id: 'after', sync_timeout: 20 });
    expect(queued.body).toMatchObject({ status: 'success' });
    expect(log.ends.map((e) => e.input)).toEqual(['after']);
    expect((await jobs.status('stop-me')).body).toMatchObject({ status: 'interrupted', error: 'cancelled' });
  }, 60_000);

  it('a job that asks a person fails on a worker, saying why (no server could take the answer)', async () => {
    const ask = `\n    - prompt: { input_type: text, text: 'Name?', save_as: name }`;
    const { jobs } = await cluster(0, ask, 'asks');
    await jobs.submit({ input_message: 'who', job_id: 'asks' });
    const done = await jobs.until('asks', 'failure', 20_000);
    expect(done.error).toMatch(/interactive/i);
  }, 60_000);
}

requires('postgres')('async jobs on interlude workers (PostgreSQL rows)', () => {
  holdMachineLock('postgres-heavy');
  describe('BullMQ on its PostgreSQL backend', () => scaleOut('postgres'));
  requires('redis')('BullMQ on Redis', () => scaleOut('redis'));
});

/** Every BullMQ job hash under `prefix` (`<prefix>:<queue>:<id>`, the ones with a `data` field). */
async function queuedJobHashes(redis: Redis, prefix: string): Promise<Record<string, string>[]> {
  const hashes: Record<string, string>[] = [];
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, type: 'hash' }) as AsyncIterable<
    string[]
  >) {
    for (const key of keys) {
      const hash = await redis.hgetall(key);
      if (hash.data !== undefined) hashes.push(hash);
    }
  }
  return hashes;
}

requires('postgres')('queued jobs at rest', () => {
  requires('redis')('BullMQ on Redis', () => {
    let stores: ReturnType<typeof isolatedStores>;
    let dir: string;
    let log: RunLog;
    let redis: Redis;
    let t: TestApp | undefined;
    stopServersAfterEach();

    beforeAll(async () => {
      stores = isolatedStores(process.env.DATABASE_URL!);
      dir = mkdtempSync(join(tmpdir(), 'interlude-workers-'));
      log = await runLog();
      redis = new Redis(process.env.REDIS_URL!);
    });
    afterAll(async () => {
      await stopWorkers();
      await t?.close();
      const left = await redis.keys(`${stores.prefix}*`);
      if (left.length > 0) await redis.del(...left);
      redis.disconnect();
      await log?.close();
      await stores?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("a queued job's hash holds no Authorization, Cookie or API key; a worker still runs it as the submitter", async () => {
      const yaml = workerYaml('redis', stores.dbUrl, stores.prefix, log.url, 0);
      const file = join(dir, 'interlude-at-rest.yml');
      writeFileSync(file, yaml);
      t = await startApp(yaml);
      const secrets = {
        authorization: 'Bearer nvapi-secret-of-carol',
        cookie: 'nat-session=carol-session; other=cookie-secret',
        'x-api-key': 'api-key-secret',
      };
      // Authorization decides alone (X-API-Key and the cookie ride along as a proxy might add them).
      const carol = jobsAt(t.url, '/v1/workflow', { ...secrets, 'x-request-note': 'kept' });
      expect((await carol.submit({ input_message: 'quiet', job_id: 'quiet' })).status).toBe(202);

      // No worker runs yet: the job waits in Redis.
      const [hash] = await eventually(async () => {
        const found = await queuedJobHashes(redis, stores.prefix);
        expect(found).toHaveLength(1);
        return found;
      });
      const data = JSON.parse(hash.data) as {
        request: { headers: Record<string, unknown>; cookies: object };
      };
      expect(data.request.headers['x-request-note']).toBe('kept');
      expect(data.request.cookies).toEqual({});
      const stored = JSON.stringify(hash);
      for (const secret of ['nvapi-secret-of-carol', 'carol-session', 'cookie-secret', 'api-key-secret']) {
        expect(stored).not.toContain(secret);
      }

      await startWorker(file, 'w1');
      const done = await carol.until('quiet', 'success', 20_000);
      expect(done.output).toEqual({ value: 'done quiet by w1' });
      // The job is still the submitter's: another caller does not see it.
      const other = jobsAt(t.url, '/v1/workflow', { authorization: 'Bearer nvapi-someone-else' });
      expect((await other.status('quiet')).status).toBe(404);
    }, 60_000);
  });
});
