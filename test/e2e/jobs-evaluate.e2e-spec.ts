import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALICE, BOB, ISO_Z, jobsAt } from '../utils/jobs-client';
import { EvaluationRunnerTestDouble, startAppWithEvaluationDouble } from '../utils/jobs-evaluation-double';
import { ECHO_YAML, eventually } from '../utils/test-app';

describe('POST /evaluate and its job routes (with the evaluation test double)', () => {
  let dir: string;
  let configDir: string;
  let runner: EvaluationRunnerTestDouble;
  let server: { url: string; close(): Promise<void> };
  const alice = () => jobsAt(server.url, '', ALICE);
  const until = (jobId: string, status: string, as = ALICE) =>
    eventually(async () => {
      const res = await jobsAt(server.url, '', as).get(`/evaluate/job/${jobId}`);
      expect(res.body.status).toBe(status);
      return res.body;
    }, 5000);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'interlude-eval-'));
    configDir = join(dir, 'configs');
    mkdirSync(join(configDir, 'nested'), { recursive: true });
    writeFileSync(join(configDir, 'eval.yml'), 'workflow: served\n');
    writeFileSync(join(configDir, 'nested', 'other.yaml'), 'workflow: served\n');
    writeFileSync(join(configDir, 'broken.yml'), "test_double: { fail: 'dataset missing' }\n");
    writeFileSync(join(configDir, 'waits.yml'), 'test_double: { wait_for_cancel: true }\n');
    writeFileSync(join(configDir, 'notes.txt'), 'not yaml\n');
    writeFileSync(join(dir, 'outside.yml'), 'workflow: served\n');
    symlinkSync(join(dir, 'outside.yml'), join(configDir, 'escape.yml'));
    runner = new EvaluationRunnerTestDouble(join(dir, 'out'));
    server = await startAppWithEvaluationDouble(
      // No WebSocket face: this app is built without createApp's socket adapter.
      `general:\n  front_end: { workflow: { websocket_path: null } }\n  evaluation:\n    config_dir: '${configDir}'\n${ECHO_YAML}`,
      runner,
    );
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before any job, /evaluate/job/last is 404 "No jobs found"', async () => {
    expect(
      await jobsAt(server.url, '', { authorization: 'Bearer nvapi-new' }).get('/evaluate/job/last'),
    ).toEqual({
      status: 404,
      body: { detail: 'No jobs found' },
    });
  });

  it('runs the config as the submitter and shows config_file, output_path and the scores', async () => {
    const submitted = await alice().post('/evaluate', {
      config_file: join(configDir, 'eval.yml'),
      job_id: 'e-1',
      reps: 2,
    });
    expect(submitted).toEqual({ status: 202, body: { job_id: 'e-1', status: 'submitted' } });
    const done = await until('e-1', 'success');
    expect(done).toEqual({
      job_id: 'e-1',
      status: 'success',
      error: null,
      created_at: expect.stringMatching(ISO_Z),
      updated_at: expect.stringMatching(ISO_Z),
      expires_at: expect.stringMatching(ISO_Z),
      output: { averages: { exact_match: 1 } },
      // Relative to config_dir and to the output folder: answers name no path of the server's.
      config_file: 'eval.yml',
      output_path: expect.stringMatching(/^user-[0-9a-f]{32}\/e-1$/),
    });
    expect(JSON.stringify(done)).not.toContain(dir);
    const written = JSON.parse(
      readFileSync(join(dir, 'out', String(done.output_path), 'exact_match_output.json'), 'utf8'),
    );
    expect(written).toMatchObject({ reps: 2, user: expect.any(String) });
    expect((await alice().get('/evaluate/job/last')).body).toMatchObject({ job_id: 'e-1' });
  });

  it('an existing job_id answers 200 with its status; nothing new runs', async () => {
    await alice().post('/evaluate', {
      config_file: join(configDir, 'nested', 'other.yaml'),
      job_id: 'e-dup',
    });
    await until('e-dup', 'success');
    const runs = runner.requests.length;
    const again = await alice().post('/evaluate', {
      config_file: join(configDir, 'eval.yml'),
      job_id: 'e-dup',
    });
    expect(again).toEqual({ status: 200, body: { job_id: 'e-dup', status: 'success' } });
    expect(runner.requests).toHaveLength(runs);
  });

  it('an evaluation that throws ends failure with its message', async () => {
    await alice().post('/evaluate', { config_file: join(configDir, 'broken.yml'), job_id: 'e-broken' });
    expect(await until('e-broken', 'failure')).toMatchObject({ error: 'dataset missing', output_path: null });
  });

  it('lists your evaluation jobs by status; an invalid status is a 422', async () => {
    await until('e-1', 'success');
    const ok = await alice().get('/evaluate/jobs?status=success');
    expect(ok.status).toBe(200);
    const ids = (ok.body as unknown as { job_id: string; status: string }[]).map((j) => j.job_id);
    expect(ids).toEqual(expect.arrayContaining(['e-1', 'e-dup']));
    expect(ids).not.toContain('e-broken');
    const bad = await alice().get('/evaluate/jobs?status=finished');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'status'] })]);
  });

  it("another user gets 404 on alice's evaluation job, and their own 'last'", async () => {
    const bob = jobsAt(server.url, '', BOB);
    expect(await bob.get('/evaluate/job/e-1')).toEqual({
      status: 404,
      body: { detail: 'Job e-1 not found' },
    });
    expect((await bob.get('/evaluate/jobs')).body).toEqual([]);
    expect((await bob.get('/evaluate/job/last')).status).toBe(404);
  });

  it('a workflow job route does not show an evaluation job', async () => {
    expect((await jobsAt(server.url, '/v1/workflow', ALICE).status('e-1')).status).toBe(404);
  });

  it.each([
    ['a path outside config_dir', () => join(dir, 'outside.yml')],
    ['a ../ escape', () => join(configDir, '..', 'outside.yml')],
    ['a relative ../ escape', () => '../../../../../../etc/hostname.yml'],
    ['a link leading outside', () => join(configDir, 'escape.yml')],
    ['a file that is not YAML', () => join(configDir, 'notes.txt')],
    ['a missing file', () => join(configDir, 'missing.yml')],
    ['a directory', () => `${join(configDir, 'nested')}.yml`],
    ['a NUL byte', () => `${join(configDir, 'eval.yml')}\u0000.yml`],
  ])('config_file naming %s is a 422, and nothing runs', async (_what, file) => {
    const runs = runner.requests.length;
    const res = await alice().post('/evaluate', { config_file: file() });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'config_file'] })]);
    expect(runner.requests).toHaveLength(runs);
  });

  it('config_file outside config_dir gets the answer a missing one gets: no existence oracle, no path', async () => {
    const messages: string[] = [];
    for (const file of [
      join(dir, 'outside.yml'), // exists, outside
      join(dir, 'nowhere.yml'), // missing, outside
      '/etc/hostname.yml',
      join(configDir, 'missing.yml'), // missing, inside
      join(configDir, 'escape.yml'), // a link inside that leads outside
    ]) {
      const res = await alice().post('/evaluate', { config_file: file });
      expect(res.status).toBe(422);
      const [issue] = res.body.detail as { msg: string }[];
      messages.push(issue.msg);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).not.toContain(dir);
  });

  it.each(['../x', 'a/b', '..', '.', '.hidden', '-x', 'a\\b', '', 'x'.repeat(129)])(
    'job_id %j is a 422',
    async (jobId) => {
      const runs = runner.requests.length;
      const res = await alice().post('/evaluate', {
        config_file: join(configDir, 'eval.yml'),
        job_id: jobId,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'job_id'] })]);
      expect(runner.requests).toHaveLength(runs);
    },
  );

  it.each([
    ['reps', 0],
    ['expiry_seconds', 599],
    ['config_file', 5],
  ])('%s = %j is a 422', async (field, value) => {
    const res = await alice().post('/evaluate', { config_file: join(configDir, 'eval.yml'), [field]: value });
    expect(res.status).toBe(422);
  });

  it('the workflow job routes do not reach a running evaluation job (DELETE there is 404)', async () => {
    await alice().post('/evaluate', { config_file: join(configDir, 'waits.yml'), job_id: 'e-wait' });
    await until('e-wait', 'running');
    expect((await jobsAt(server.url, '/v1/workflow', ALICE).cancel('e-wait')).status).toBe(404);
  });
});
