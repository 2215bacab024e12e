import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { aFolder, outputsIn, scoresOf } from '../utils/eval-runner';
import { FakeLlm, reply } from '../utils/fake-llm';
import { ALICE, BOB, jobsAt } from '../utils/jobs-client';
import { eventually, startApp, type TestApp } from '../utils/test-app';

const CONFIG_DIR = resolve(__dirname, '../../config');

/**
 * `POST /evaluate` with the real evaluation library on the shipped examples: a job per config, each
 * evaluator's scores in its status and in the files under `output_path`.
 */
describe('POST /evaluate on config/examples/eval (the real evaluation runner)', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let output: string;
  const alice = () => jobsAt(t.url, '', ALICE);
  const bob = () => jobsAt(t.url, '', BOB);
  const finished = (jobId: string, as = alice) =>
    eventually(async () => {
      const res = await as().get(`/evaluate/job/${jobId}`);
      expect(['success', 'failure']).toContain(res.body.status);
      return res.body;
    }, 20_000);

  beforeAll(async () => {
    llm = await FakeLlm.start();
    output = aFolder('interlude-eval-jobs-');
    t = await startApp(
      stringify({
        general: { evaluation: { config_dir: CONFIG_DIR } },
        // llm-judge.yml names the served config's judge (the operator's model: trusted, env expands).
        llms: { judge: { _type: 'openai', base_url: llm.url, model_name: 'judge-model', max_retries: 0 } },
        workflow: { _type: 'echo' },
        eval: { general: { output_dir: output } },
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await llm.close();
  });

  it('eval.yml: exact_match, contains, regex and trajectory scores, in the status and the files', async () => {
    const submitted = await alice().post('/evaluate', {
      config_file: join(CONFIG_DIR, 'examples/eval/eval.yml'),
      job_id: 'offline-1',
    });
    expect(submitted).toEqual({ status: 202, body: { job_id: 'offline-1', status: 'submitted' } });
    const done = await finished('offline-1');
    expect(done).toMatchObject({
      status: 'success',
      error: null,
      config_file: join('examples', 'eval', 'eval.yml'),
      output_path: expect.stringMatching(/^user-[0-9a-f]{32}\/offline-1$/),
    });
    const files = outputsIn(join(output, String(done.output_path)));
    expect(Object.keys(files).sort()).toEqual([
      'exact_output.json',
      'mentions_output.json',
      'plan_shape_output.json',
      'tools_output.json',
      'workflow_output.json',
    ]);
    expect(scoresOf(files['exact_output.json'])).toEqual({ 'sunny-week': 1, 'city-break': 0, andalusia: 0 });
    expect(scoresOf(files['mentions_output.json'])).toEqual({
      'sunny-week': 1,
      'city-break': 1,
      andalusia: 0,
    });
    expect(scoresOf(files['plan_shape_output.json'])).toEqual({
      'sunny-week': 1,
      'city-break': 1,
      andalusia: 1,
    });
    expect(scoresOf(files['tools_output.json'])).toEqual({
      'sunny-week': 1,
      'city-break': 1,
      andalusia: 0.5,
    });
  });

  it('llm-judge.yml: the judge model scores each answer; the job shows its average', async () => {
    llm.script(
      reply.text('{"score": 1, "reasoning": "Names Lisbon."}'),
      reply.text('{"score": 1, "reasoning": "Lisbon, as the reference says."}'),
      reply.text('{"score": 0, "reasoning": "Lisbon is not Seville."}'),
    );
    await alice().post('/evaluate', {
      config_file: 'config/examples/eval/llm-judge.yml',
      job_id: 'judged-1',
    });
    const done = await finished('judged-1');
    expect(done.status).toBe('success');
    const files = outputsIn(join(output, String(done.output_path)));
    expect((files['judge_output.json'] as { average_score: number }).average_score).toBeCloseTo(2 / 3);
    expect(llm.requests).toHaveLength(3);
    expect(llm.pending).toBe(0);
  });

  it("bob's job with alice's job_id leaves alice's results alone: each owner has a folder", async () => {
    const configFile = join(CONFIG_DIR, 'examples/eval/eval.yml');
    await alice().post('/evaluate', { config_file: configFile, job_id: 'ev1', reps: 2 });
    const hers = await finished('ev1');
    await bob().post('/evaluate', { config_file: configFile, job_id: 'ev1' });
    const his = await finished('ev1', bob);
    expect([hers.status, his.status]).toEqual(['success', 'success']);
    expect(his.output_path).not.toEqual(hers.output_path);
    const herScores = scoresOf(outputsIn(join(output, String(hers.output_path)))['exact_output.json']);
    expect(Object.keys(herScores).sort()).toEqual([
      'andalusia_rep0',
      'andalusia_rep1',
      'city-break_rep0',
      'city-break_rep1',
      'sunny-week_rep0',
      'sunny-week_rep1',
    ]);
    const hisScores = scoresOf(outputsIn(join(output, String(his.output_path)))['exact_output.json']);
    expect(Object.keys(hisScores).sort()).toEqual(['andalusia', 'city-break', 'sunny-week']);
  });

  it("a failed evaluation's error names its file relative to config_dir, never the server's folders", async () => {
    await alice().post('/evaluate', { config_file: join(CONFIG_DIR, 'echo.yml'), job_id: 'not-an-eval' });
    const done = await finished('not-an-eval');
    expect(done.status).toBe('failure');
    expect(done.error).toContain('echo.yml');
    expect(done.error).toContain('an evaluation file needs an eval section');
    expect(JSON.stringify(done)).not.toContain(CONFIG_DIR);
    expect(JSON.stringify(done)).not.toContain(output);
  });
});
