import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobExpiry } from '../../src/jobs/job-expiry';
import { ALICE, BOB, jobsAt, jsonCall } from '../utils/jobs-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { verifyStandardWebhook } from '../utils/webhook-receiver';

const ASKS = scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hello {{name}}');

describe('a job whose workflow asks a person', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ASKS)));
  afterAll(() => t.close());

  it('shows interaction_required with where to answer; the answer over HTTP lets it finish', async () => {
    const jobs = jobsAt(t.url, '/v1/workflow', ALICE);
    const jobId = `ask-${randomUUID()}`;
    expect((await jobs.submit({ input_message: 'x', job_id: jobId })).status).toBe(202);
    const waiting = await jobs.until(jobId, 'interaction_required');
    expect(waiting).toMatchObject({
      job_id: jobId,
      status: 'interaction_required',
      error: null,
      output: null,
      expires_at: null,
      execution_id: expect.any(String),
      interaction_id: expect.any(String),
      prompt: expect.objectContaining({ input_type: 'text', text: 'Name?' }),
      response_url: `/executions/${String(waiting.execution_id)}/interactions/${String(waiting.interaction_id)}/response`,
    });
    const listed = await jobs.list('?status=interaction_required');
    expect((listed.body.jobs as { job_id: string }[]).map((j) => j.job_id)).toContain(jobId);

    const answer = { response: { type: 'text', text: 'Ada' } };
    expect((await jsonCall('POST', `${t.url}${String(waiting.response_url)}`, answer, BOB)).status).toBe(404);
    expect((await jsonCall('POST', `${t.url}${String(waiting.response_url)}`, answer, ALICE)).status).toBe(
      204,
    );
    const done = await jobs.until(jobId, 'success');
    expect(done.output).toEqual({ value: 'Hello Ada' });
    expect(done).not.toHaveProperty('response_url');
  });

  it('a job waiting for a person can be cancelled', async () => {
    const jobs = jobsAt(t.url, '/v1/workflow', ALICE);
    const jobId = `ask-cancel-${randomUUID()}`;
    await jobs.submit({ input_message: 'x', job_id: jobId });
    await jobs.until(jobId, 'interaction_required');
    expect((await jobs.cancel(jobId)).body).toMatchObject({ status: 'interrupted', error: 'cancelled' });
  });
});

describe('expiry', () => {
  it('a finished job past expires_at loses its output, keeps its row and status', async () => {
    const t = await startApp(scriptedYaml(`- step: { name: s }`, 'kept {{input}}'));
    try {
      const jobs = jobsAt(t.url);
      const { body } = await jobs.submit({ input_message: 'x', expiry_seconds: 600 });
      const jobId = body.job_id as string;
      const done = await jobs.until(jobId, 'success');
      expect(done.output).toEqual({ value: 'kept x' });
      const expiry = t.app.get(JobExpiry);
      expect(await expiry.sweep(new Date(Date.parse(done.expires_at as string) - 1000))).toBe(0);
      expect((await jobs.status(jobId)).body.output).toEqual({ value: 'kept x' });
      expect(await expiry.sweep(new Date(Date.parse(done.expires_at as string) + 1))).toBeGreaterThanOrEqual(
        1,
      );
      expect((await jobs.status(jobId)).body).toEqual({ ...done, output: null });
    } finally {
      await t.close();
    }
  });
});

describe('restart of an in-process server', () => {
  it('a job that was running when the server stopped ends failure "server restarted"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-jobs-'));
    const yaml = `general:\n  db_url: 'sqlite:${join(dir, 'jobs.db')}'\n${scriptedYaml(`- sleep: { seconds: 60 }`, 'never')}`;
    let t = await startApp(yaml);
    try {
      await jobsAt(t.url).submit({ input_message: 'x', job_id: 'long' });
      await jobsAt(t.url).submit({ input_message: 'x', job_id: 'short', sync_timeout: 0 });
      await jobsAt(t.url).until('long', 'running');
      await t.close();
      t = await startApp(yaml);
      const after = await jobsAt(t.url).status('long');
      expect(after.body).toMatchObject({ job_id: 'long', status: 'failure', error: 'server restarted' });
      expect(after.body.expires_at).toEqual(expect.any(String));
      expect((await jobsAt(t.url).submit({ input_message: 'x', job_id: 'long' })).body).toEqual({
        job_id: 'long',
        status: 'failure',
      });
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('completion webhook', () => {
  let hook: Server;
  let hookUrl: string;
  const received: { path: string; body: string; headers: IncomingHttpHeaders }[] = [];
  let failFirst = 0;

  beforeAll(async () => {
    hook = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (failFirst > 0) {
          failFirst--;
          res.writeHead(503).end();
          return;
        }
        received.push({ path: req.url ?? '', body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => hook.close(r)));

  it('the server-wide and the per-job webhook get the final status, signed, retried after a 503', async () => {
    const general = `general:
  outbound:
    allow_hosts: ['127.0.0.1']
  async:
    webhook_url: '${hookUrl}/server'
    webhook_secret: s3cret
    webhook_backoff_seconds: 0.05
    webhook_allow_hosts: ['127.0.0.1']
`;
    const t = await startApp(`${general}${scriptedYaml(`- step: { name: s }`, 'done {{input}}')}`);
    try {
      failFirst = 2;
      const jobId = `hook-${randomUUID()}`;
      await jobsAt(t.url).submit({ input_message: 'x', job_id: jobId, webhook_url: `${hookUrl}/job?k=1` });
      await eventually(
        () => expect(received.map((r) => r.path).sort()).toEqual(['/job?k=1', '/server']),
        5000,
      );
      for (const r of received) {
        const body = verifyStandardWebhook('s3cret', r);
        expect(body).toMatchObject({
          event: 'job.finished',
          job_id: jobId,
          status: 'success',
          output: { value: 'done x' },
        });
      }
    } finally {
      await t.close();
    }
  });
});
