import { randomUUID } from 'node:crypto';
import { ALICE, BOB, jobsAt } from '../utils/jobs-client';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const SLOW = scriptedYaml(`- sleep: { seconds: 30 }`, 'late');

describe('async job bounds', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(scriptedYaml(`- step: { name: s }`, 'ok {{input}}'))));
  afterAll(() => t.close());

  it.each([
    ['sync_timeout', -1],
    ['sync_timeout', 301],
    ['sync_timeout', 1.5],
    ['sync_timeout', '10'],
    ['expiry_seconds', 599],
    ['expiry_seconds', 86401],
    ['job_id', ''],
    ['job_id', 'x'.repeat(257)],
    ['job_id', 42],
  ])('%s = %j is a 422 naming the field', async (field, value) => {
    const res = await jobsAt(t.url).submit({ input_message: 'x', [field]: value });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', field] })]);
  });

  it('the limits themselves are accepted', async () => {
    const res = await jobsAt(t.url).submit({
      input_message: 'x',
      sync_timeout: 0,
      expiry_seconds: 600,
      job_id: 'y'.repeat(256),
    });
    expect(res.status).toBe(202);
    const max = await jobsAt(t.url).submit({ input_message: 'x', sync_timeout: 300, expiry_seconds: 86400 });
    expect(max.status).toBe(200);
    expect(Date.parse(max.body.expires_at as string) - Date.parse(max.body.updated_at as string)).toBe(
      86400_000,
    );
  });

  it("the workflow's own input is validated too (422), and a body that is not an object", async () => {
    const bad = await jobsAt(t.url).submit({ input_message: 7 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'input_message'] })]);
    const res = await fetch(`${t.url}/v1/workflow/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1,2]',
    });
    expect(res.status).toBe(422);
  });

  it('a per-job webhook_url outside general.async.webhook_allow_hosts is a 422', async () => {
    const res = await jobsAt(t.url).submit({ input_message: 'x', webhook_url: 'http://169.254.169.254/x' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'webhook_url'], msg: expect.stringMatching(/allow_hosts/) }),
    ]);
  });

  it.each([
    ['?status=done', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=abc', 'limit'],
    ['?cursor=not-a-cursor', 'cursor'],
  ])('listing with %s is a 422 naming %s', async (query, field) => {
    const res = await jobsAt(t.url).list(query);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', field] })]);
  });
});

describe('jobs belong to whoever submitted them', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(SLOW)));
  afterAll(() => t.close());

  it.each([
    ['another user', BOB],
    ['an anonymous caller', {}],
  ])("%s gets 404 on every route of alice's job, and changes nothing", async (_who, headers) => {
    const jobId = `alice-${randomUUID()}`;
    const alice = jobsAt(t.url, '/v1/workflow', ALICE);
    expect((await alice.submit({ input_message: 'secret', job_id: jobId })).status).toBe(202);
    const other = jobsAt(t.url, '/v1/workflow', headers);
    const notFound = { status: 404, body: { detail: `Job ${jobId} not found` } };
    expect(await other.status(jobId)).toEqual(notFound);
    expect(await jobsAt(t.url, '/generate', headers).status(jobId)).toEqual(notFound);
    expect(await other.cancel(jobId)).toEqual(notFound);
    const listed = (await other.list()).body.jobs as { job_id: string }[];
    expect(listed.map((j) => j.job_id)).not.toContain(jobId);
    expect((await alice.status(jobId)).body.status).toMatch(/submitted|running/);
    await alice.cancel(jobId);
  });

  it("the same job_id chosen by another user is that user's own job", async () => {
    const jobId = `shared-name-${randomUUID()}`;
    const alice = jobsAt(t.url, '/v1/workflow', ALICE);
    const bob = jobsAt(t.url, '/v1/workflow', BOB);
    expect((await alice.submit({ input_message: 'a', job_id: jobId })).status).toBe(202);
    expect((await bob.submit({ input_message: 'b', job_id: jobId })).status).toBe(202);
    await bob.cancel(jobId);
    expect((await alice.status(jobId)).body.status).not.toBe('interrupted');
    await alice.cancel(jobId);
  });

  it('the list shows only your jobs, newest first, by status, a page at a time', async () => {
    const carol = jobsAt(t.url, '/v1/workflow', { authorization: `Bearer nvapi-${randomUUID()}` });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = `c${i}`;
      ids.push(id);
      await carol.submit({ input_message: 'x', job_id: id });
    }
    await carol.cancel('c1');
    await carol.cancel('c3');
    const first = await carol.list('?limit=2');
    expect((first.body.jobs as { job_id: string }[]).map((j) => j.job_id)).toEqual(['c4', 'c3']);
    const second = await carol.list(`?limit=2&cursor=${String(first.body.next_cursor)}`);
    expect((second.body.jobs as { job_id: string }[]).map((j) => j.job_id)).toEqual(['c2', 'c1']);
    const third = await carol.list(`?limit=2&cursor=${String(second.body.next_cursor)}`);
    expect(third.body).toEqual({ jobs: [expect.objectContaining({ job_id: 'c0' })], next_cursor: null });
    const interrupted = await carol.list('?status=interrupted');
    expect((interrupted.body.jobs as { job_id: string }[]).map((j) => j.job_id)).toEqual(['c3', 'c1']);
    for (const id of ['c0', 'c2', 'c4']) await carol.cancel(id);
  });
});

describe('sync_timeout holds only its own request', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(SLOW)));
  afterAll(() => t.close());

  it('20 held waits leave other requests fast, and each answers 202 at its timeout', async () => {
    const jobs = jobsAt(t.url, '/v1/workflow', { authorization: `Bearer nvapi-${randomUUID()}` });
    const started = Date.now();
    let answered = 0;
    const held = Array.from({ length: 20 }, (_, i) =>
      jobs.submit({ input_message: 'x', job_id: `held-${i}`, sync_timeout: 4 }).finally(() => answered++),
    );
    await jobs.until('held-19', ['submitted', 'running']);
    // Other requests are answered while every held wait still waits (none answers before its 4 s: time
    // enough for these on a loaded machine).
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${t.url}/health`);
      expect(res.status).toBe(200);
      expect(answered).toBe(0);
    }
    const answers = await Promise.all(held);
    for (const a of answers) expect(a.status).toBe(202);
    // One user runs max_running_jobs_per_user (default 5) of the 10 slots: five ran, fifteen waited.
    const count = (status: string) => answers.filter((a) => a.body.status === status).length;
    expect([count('running'), count('submitted')]).toEqual([5, 15]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    for (let i = 0; i < 20; i++) await jobs.cancel(`held-${i}`);
  });
});

describe('how many jobs one caller may have', () => {
  it('past general.async.max_active_jobs_per_user unfinished jobs, a submit is 429; others are not held up', async () => {
    const t = await startApp(`general:\n  async: { max_active_jobs_per_user: 2 }\n${SLOW}`);
    try {
      const dana = jobsAt(t.url, '/v1/workflow', { authorization: 'Bearer nvapi-dana' });
      expect((await dana.submit({ input_message: 'x', job_id: 'd1' })).status).toBe(202);
      expect((await dana.submit({ input_message: 'x', job_id: 'd2' })).status).toBe(202);
      const third = await dana.submit({ input_message: 'x', job_id: 'd3' });
      expect(third.status).toBe(429);
      expect(third.body.detail).toMatch(/max_active_jobs_per_user/);
      expect((await dana.submit({ input_message: 'x', job_id: 'd1' })).status).toBe(200);
      expect((await jobsAt(t.url, '/v1/workflow', ALICE).submit({ input_message: 'x' })).status).toBe(202);
      await dana.cancel('d1');
      expect((await dana.submit({ input_message: 'x', job_id: 'd3' })).status).toBe(202);
    } finally {
      await t.close();
    }
  });
});
