import { randomUUID } from 'node:crypto';
import { ALICE, ISO_Z, jobsAt } from '../utils/jobs-client';
import { registryWith } from '../utils/test-function';
import { ECHO_YAML, failingYaml, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const SLOW = scriptedYaml(`- sleep: { seconds: 30 }`, 'late {{input}}');

describe('async jobs: submit and poll, as NeMo Agent Toolkit answers', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each(['/v1/workflow', '/generate'])(
    '%s/async answers 202 submitted, and the job ends success with the output',
    async (base) => {
      const jobs = jobsAt(t.url, base);
      const submitted = await jobs.submit({ message: 'hello' });
      expect(submitted.status).toBe(202);
      expect(submitted.body).toEqual({ job_id: expect.any(String), status: 'submitted' });
      const jobId = submitted.body.job_id as string;
      expect(jobId).toMatch(/^[0-9a-f-]{36}$/);

      const done = await jobs.until(jobId, 'success');
      expect(done).toEqual({
        job_id: jobId,
        status: 'success',
        error: null,
        created_at: expect.stringMatching(ISO_Z),
        updated_at: expect.stringMatching(ISO_Z),
        expires_at: expect.stringMatching(ISO_Z),
        output: { value: 'hello' },
      });
      expect(Date.parse(done.expires_at as string) - Date.parse(done.updated_at as string)).toBe(3600_000);
    },
  );

  it('both paths read one job table', async () => {
    const submitted = await jobsAt(t.url, '/generate').submit({
      message: 'shared',
      job_id: `j-${randomUUID()}`,
    });
    const jobId = submitted.body.job_id as string;
    const viaVersioned = await jobsAt(t.url).until(jobId, 'success');
    expect(viaVersioned.output).toEqual({ value: 'shared' });
  });

  it('an unknown job is 404 with NeMo Agent Toolkit’s detail', async () => {
    const res = await jobsAt(t.url).status('nope');
    expect(res).toEqual({ status: 404, body: { detail: 'Job nope not found' } });
  });

  it('with sync_timeout, a job that ends in time answers 200 with the full status', async () => {
    const jobId = `sync-${randomUUID()}`;
    const res = await jobsAt(t.url).submit({ message: 'quick', job_id: jobId, sync_timeout: 10 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job_id: jobId, status: 'success', output: { value: 'quick' } });
    expect(res.body.expires_at).toMatch(ISO_Z);
  });

  it('an existing job_id answers 200 with its current status, and nothing new runs', async () => {
    const jobId = `dup-${randomUUID()}`;
    const jobs = jobsAt(t.url);
    expect((await jobs.submit({ message: 'first', job_id: jobId })).status).toBe(202);
    await jobs.until(jobId, 'success');
    const again = await jobs.submit({ message: 'second', job_id: jobId });
    expect(again).toEqual({ status: 200, body: { job_id: jobId, status: 'success' } });
    expect((await jobs.status(jobId)).body.output).toEqual({ value: 'first' });
  });

  it('the same job_id submitted 20 times at once makes one job', async () => {
    const jobId = `race-${randomUUID()}`;
    const jobs = jobsAt(t.url);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => jobs.submit({ message: `m${i}`, job_id: jobId })),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    const first = answers.find((a) => a.status === 202)!;
    expect(first.body).toEqual({ job_id: jobId, status: 'submitted' });
    const listed = await jobs.list('?limit=100');
    expect((listed.body.jobs as { job_id: string }[]).filter((j) => j.job_id === jobId)).toHaveLength(1);
  });
});

describe('async jobs that fail or are cancelled', () => {
  it('a failing workflow ends failure with its message', async () => {
    const t = await startApp(failingYaml(''));
    try {
      const jobs = jobsAt(t.url);
      const { body } = await jobs.submit({ input_message: 'x' });
      const done = await jobs.until(body.job_id as string, 'failure');
      expect(done).toMatchObject({ status: 'failure', error: 'tool exploded', output: null });
      expect(done.expires_at).toMatch(ISO_Z);
    } finally {
      await t.close();
    }
  });

  it('DELETE cancels a running job: interrupted, error "cancelled"; a second DELETE is 409', async () => {
    const t = await startApp(SLOW);
    try {
      const jobs = jobsAt(t.url);
      const { body } = await jobs.submit({ input_message: 'x', job_id: 'to-cancel' });
      await jobs.until('to-cancel', 'running');
      const cancelled = await jobs.cancel('to-cancel');
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({
        job_id: body.job_id,
        status: 'interrupted',
        error: 'cancelled',
      });
      expect((await jobs.status('to-cancel')).body).toMatchObject({
        status: 'interrupted',
        error: 'cancelled',
      });
      expect((await jobs.cancel('to-cancel')).status).toBe(409);
    } finally {
      await t.close();
    }
  });

  it('DELETE cancels a job still waiting for a slot; it never runs', async () => {
    const t = await startApp(`${SLOW}\ngeneral:\n  async:\n    max_concurrent_jobs: 1\n`);
    try {
      const jobs = jobsAt(t.url);
      await jobs.submit({ input_message: 'x', job_id: 'busy' });
      await jobs.until('busy', 'running');
      await jobs.submit({ input_message: 'y', job_id: 'queued' });
      expect((await jobs.status('queued')).body.status).toBe('submitted');
      expect((await jobs.cancel('queued')).body).toMatchObject({ status: 'interrupted' });
      await jobs.cancel('busy');
      expect((await jobs.status('queued')).body).toMatchObject({ status: 'interrupted', error: 'cancelled' });
    } finally {
      await t.close();
    }
  });
});

describe('what a job sees of its caller', () => {
  it('runs as the submitting identity, with the request headers it was submitted with', async () => {
    const registry = registryWith('caller', async (_input, ctx) => ({
      user: ctx.identity.userId,
      source: ctx.identity.source,
      team: ctx.request.headers['x-team'] ?? null,
    }));
    const t = await startApp('workflow:\n  _type: caller\n', registry);
    try {
      const jobs = jobsAt(t.url, '/v1/workflow', { ...ALICE, 'x-team': 'blue' });
      const res = await jobs.submit({ input_message: 'x', sync_timeout: 10 });
      expect(res.status).toBe(200);
      expect(res.body.output).toEqual({
        user: expect.stringMatching(/^[0-9a-f-]{36}$/),
        source: 'cookie',
        team: 'blue',
      });
    } finally {
      await t.close();
    }
  });

  it('another method on an async route is 405 naming the allowed one', async () => {
    const t = await startApp(ECHO_YAML);
    try {
      const res = await fetch(`${t.url}/v1/workflow/async`, { method: 'PUT' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    } finally {
      await t.close();
    }
  });
});
