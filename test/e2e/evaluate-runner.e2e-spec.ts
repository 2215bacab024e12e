import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ownerFolder } from '../../src/jobs/evaluation/output-folder';
import { anIdentity } from '../utils/builders';
import { aFolder, EXAMPLES, filesIn, outputsIn, runEvaluation, scoresOf } from '../utils/eval-runner';
import { FakeLlm, reply } from '../utils/fake-llm';
import { startApp, type TestApp } from '../utils/test-app';
import { beforeTimer } from '../utils/timing';
import { whoamiRegistry } from '../utils/whoami-function';

/** A served config whose evaluation jobs write under `outputDir`. */
const served = (
  outputDir: string,
  extra: Record<string, unknown> = {},
  workflow: Record<string, unknown> = { _type: 'echo' },
) => stringify({ ...extra, workflow, eval: { general: { output_dir: outputDir } } });

describe('the evaluation runner on config/examples/eval', () => {
  let output: string;
  let t: TestApp;
  beforeAll(async () => {
    output = aFolder('interlude-eval-out-');
    t = await startApp(served(output));
  });
  afterAll(() => t.close());

  it('runs every item through the scripted workflow and writes NAT’s files with every evaluator’s scores', async () => {
    const outcome = await runEvaluation(t, join(EXAMPLES, 'eval.yml'), { jobId: 'example-1' });
    expect(outcome.outputPath).toBe(join(ownerFolder('alice'), 'example-1'));
    expect(outcome.folder.startsWith(output)).toBe(true);
    expect(outcome.averages).toEqual({
      exact: 1 / 3,
      mentions: 2 / 3,
      plan_shape: 1,
      tools: (1 + 1 + 0.5) / 3,
    });
    const files = outputsIn(outcome.folder);
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
    expect(files['tools_output.json']).toEqual({
      average_score: 2.5 / 3,
      eval_output_items: expect.arrayContaining([
        {
          id: 'andalusia',
          score: 0.5,
          reasoning:
            'expected search_destinations → flight_search (in order); called search_destinations → weather_lookup',
        },
      ]),
    });
    const workflow = files['workflow_output.json'] as Record<string, unknown>[];
    expect(workflow).toHaveLength(3);
    expect(workflow[2]).toMatchObject({
      id: 'andalusia',
      question: 'a week in Andalusia',
      answer: 'Seville',
      generated_answer: 'Plan for "a week in Andalusia": Lisbon for three days, then Porto.',
      expected_intermediate_steps: ['search_destinations', 'flight_search'],
    });
    const steps = workflow[2].intermediate_steps as { payload: { event_type: string; name: string } }[];
    expect(steps.map((s) => `${s.payload.event_type} ${s.payload.name}`)).toEqual(
      expect.arrayContaining([
        'TOOL_START search_destinations',
        'TOOL_END search_destinations',
        'TOOL_END weather_lookup',
      ]),
    );
  });

  it('runs each item reps times, with NAT’s <id>_rep<n> ids', async () => {
    const outcome = await runEvaluation(t, join(EXAMPLES, 'eval.yml'), { reps: 2 });
    expect(Object.keys(scoresOf(outputsIn(outcome.folder)['exact_output.json'])).sort()).toEqual([
      'andalusia_rep0',
      'andalusia_rep1',
      'city-break_rep0',
      'city-break_rep1',
      'sunny-week_rep0',
      'sunny-week_rep1',
    ]);
    expect(outcome.averages.exact).toBeCloseTo(1 / 3);
  });

  it('refuses a job id that is not one path component and writes nothing outside the output folder', async () => {
    for (const jobId of ['../escape', '..', 'a/b', '/tmp/x', '.hidden']) {
      await expect(runEvaluation(t, join(EXAMPLES, 'eval.yml'), { jobId })).rejects.toThrow(
        'is not a single path component',
      );
    }
    expect(existsSync(join(output, '..', 'escape'))).toBe(false);
  });
});

describe('the evaluation runner with an llm_judge (config/examples/eval/llm-judge.yml)', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await FakeLlm.start();
  });
  afterAll(() => llm.close());
  afterEach(() => llm.reset());
  /** The served config's judge model: the operator's own, trusted wherever it is. */
  const servedJudge = () => ({
    llms: { judge: { _type: 'openai', base_url: llm.url, model_name: 'judge-model', max_retries: 0 } },
  });

  it("scores each answer with the served config's judge model", async () => {
    const output = aFolder('interlude-eval-out-');
    const t = await startApp(served(output, servedJudge()));
    try {
      llm.script(
        reply.text('{"score": 1, "reasoning": "Answers the request and names Lisbon."}'),
        reply.text('{"score": 1, "reasoning": "Lisbon, as the reference says."}'),
        reply.text('```json\n{"score": 0.5, "reasoning": "Answers, but Lisbon is not Seville."}\n```'),
      );
      const outcome = await runEvaluation(t, join(EXAMPLES, 'llm-judge.yml'));
      expect(outcome.averages.judge).toBeCloseTo(2.5 / 3);
      const judged = outputsIn(outcome.folder)['judge_output.json'] as {
        eval_output_items: { id: string; score: number; reasoning: string }[];
      };
      expect(judged.eval_output_items.map((i) => i.reasoning).sort()).toEqual([
        'Answers the request and names Lisbon.',
        'Answers, but Lisbon is not Seville.',
        'Lisbon, as the reference says.',
      ]);
      expect(llm.requests).toHaveLength(3);
      expect(llm.pending).toBe(0);
      const prompts = llm.requests.map((r) => r.body.messages[1].content);
      expect(prompts).toContainEqual(expect.stringContaining('Reference answer:\nSeville'));
      expect(llm.requests[0].body.messages[0].content).toContain("names the reference answer's destination");
    } finally {
      await t.close();
    }
  });

  /** An evaluation file that declares its own judge at the fake model's (loopback) address. */
  const ownJudge = () =>
    filesIn({
      'eval.yml': stringify({
        llms: {
          judge: { _type: 'openai', base_url: llm.url, model_name: 'm', api_key: 'k', max_retries: 0 },
        },
        eval: {
          general: { dataset: { _type: 'json', file_path: 'data.json' } },
          evaluators: { judge: { _type: 'llm_judge', llm_name: 'judge' } },
        },
      }),
      'data.json': JSON.stringify([{ id: 1, question: 'q', answer: 'a' }]),
    });

  it('a judge the evaluation file declares is used where general.outbound allows it', async () => {
    const t = await startApp(
      served(aFolder('interlude-eval-out-'), { general: { outbound: { allow_hosts: ['127.0.0.1'] } } }),
    );
    try {
      llm.script(reply.text('{"score": 1, "reasoning": "ok"}'));
      const outcome = await runEvaluation(t, join(ownJudge(), 'eval.yml'));
      expect(outcome.averages.judge).toBe(1);
      expect(llm.requests).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('a judge at a loopback address the outbound policy does not allow scores nothing, and says why', async () => {
    const t = await startApp(served(aFolder('interlude-eval-out-')));
    try {
      const outcome = await runEvaluation(t, join(ownJudge(), 'eval.yml'));
      expect(outcome.averages.judge).toBeNull();
      expect(llm.requests).toHaveLength(0);
      const judged = outputsIn(outcome.folder)['judge_output.json'] as {
        eval_output_items: { error: string }[];
      };
      expect(judged.eval_output_items[0].error).toContain('general.outbound.allow_hosts');
    } finally {
      await t.close();
    }
  });
});

describe('the evaluation runner, item by item', () => {
  const dataset = JSON.stringify([
    { id: 1, question: 'first', answer: 'first' },
    { id: 2, question: 'second', answer: 'second' },
  ]);
  const evalFile = (general: Record<string, unknown> = {}, top: Record<string, unknown> = {}) =>
    stringify({
      ...top,
      eval: {
        general: { dataset: { _type: 'json', file_path: 'data.json' }, ...general },
        evaluators: { exact: { _type: 'exact_match' } },
      },
    });

  it('without a workflow of its own, runs the served workflow as the job’s identity', async () => {
    const t = await startApp(served(aFolder(), {}, { _type: 'whoami' }), whoamiRegistry());
    try {
      const dir = filesIn({ 'eval.yml': evalFile(), 'data.json': dataset });
      const outcome = await runEvaluation(t, join(dir, 'eval.yml'), { identity: anIdentity('carol') });
      const workflow = outputsIn(outcome.folder)['workflow_output.json'] as {
        generated_answer: string;
      }[];
      expect(JSON.parse(workflow[0].generated_answer)).toEqual({ identity: anIdentity('carol') });
    } finally {
      await t.close();
    }
  });

  it('an eval file with a workflow: section runs that workflow (like nat eval)', async () => {
    const t = await startApp(served(aFolder()));
    try {
      const dir = filesIn({
        'eval.yml': evalFile({}, { workflow: { _type: 'scripted', steps: [], output: 'said {{input}}' } }),
        'data.json': dataset,
      });
      const outcome = await runEvaluation(t, join(dir, 'eval.yml'));
      const workflow = outputsIn(outcome.folder)['workflow_output.json'] as {
        generated_answer: string;
      }[];
      expect(workflow.map((w) => w.generated_answer)).toEqual(['said first', 'said second']);
      expect(outcome.averages.exact).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('an item whose workflow fails scores 0 with the error; one that asks a person fails (not interactive)', async () => {
    const t = await startApp(served(aFolder()));
    try {
      const failing = { workflow: { _type: 'scripted', steps: [{ fail: { message: 'tool exploded' } }] } };
      const dir = filesIn({ 'eval.yml': evalFile({}, failing), 'data.json': dataset });
      const outcome = await runEvaluation(t, join(dir, 'eval.yml'));
      const files = outputsIn(outcome.folder);
      expect(outcome.averages.exact).toBe(0);
      expect((files['exact_output.json'] as { eval_output_items: unknown[] }).eval_output_items[0]).toEqual({
        id: 1,
        score: 0,
        reasoning: 'the workflow failed: tool exploded',
        error: 'tool exploded',
      });
      expect((files['workflow_output.json'] as { error: string }[])[1].error).toBe('tool exploded');

      const asking = {
        workflow: { _type: 'scripted', steps: [{ prompt: { input_type: 'text', text: 'Sure?' } }] },
      };
      const dir2 = filesIn({ 'eval.yml': evalFile({}, asking), 'data.json': dataset });
      const asked = outputsIn((await runEvaluation(t, join(dir2, 'eval.yml'))).folder);
      expect((asked['workflow_output.json'] as { error: string }[])[0].error).toMatch(/interactive/i);
    } finally {
      await t.close();
    }
  });

  it('keeps the step types workflow_output_step_filter names; an object question is the workflow input, checked', async () => {
    const t = await startApp(served(aFolder()));
    try {
      const steps = {
        workflow: {
          _type: 'scripted',
          steps: [{ step: { name: 'lookup', kind: 'tool', payload: 1 } }],
          output: 'got {{input}}',
        },
      };
      const data = JSON.stringify([
        { id: 'text', question: 'plain', answer: '' },
        { id: 'object', question: { input_message: 'structured' }, answer: '' },
        { id: 'wrong', question: { nothing: 1 }, answer: '' },
      ]);
      const dir = filesIn({
        'eval.yml': evalFile({ output: { workflow_output_step_filter: ['TOOL_END'] } }, steps),
        'data.json': data,
      });
      const outcome = await runEvaluation(t, join(dir, 'eval.yml'));
      const workflow = outputsIn(outcome.folder)['workflow_output.json'] as {
        generated_answer: string;
        intermediate_steps: { payload: { event_type: string } }[];
        error?: string;
      }[];
      expect(workflow[0].intermediate_steps.map((s) => s.payload.event_type)).toEqual(['TOOL_END']);
      expect(workflow.map((w) => w.generated_answer)).toEqual(['got plain', 'got structured', '']);
      expect(workflow[2].error).toMatch(/^the question is not this workflow's input/);
    } finally {
      await t.close();
    }
  });

  it('a cancelled job stops its running items and rejects with the reason', async () => {
    const t = await startApp(served(aFolder()));
    try {
      const slow = { workflow: { _type: 'scripted', steps: [{ sleep: { seconds: 30 } }], output: 'late' } };
      const dir = filesIn({ 'eval.yml': evalFile({}, slow), 'data.json': dataset });
      const abort = new AbortController();
      // set before the item starts its 30 s sleep, so due before that sleep could end
      const outcome = beforeTimer(runEvaluation(t, join(dir, 'eval.yml'), { signal: abort.signal }), 30_000);
      setImmediate(() => abort.abort(new Error('job cancelled')));
      const settled = await outcome;
      expect(settled).toMatchObject({ status: 'rejected' });
      expect((settled as PromiseRejectedResult).reason).toEqual(
        expect.objectContaining({ message: expect.stringContaining('job cancelled') }),
      );
    } finally {
      await t.close();
    }
  });

  it('a config problem names the file, the line and the path', async () => {
    const t = await startApp(served(aFolder()));
    try {
      const dir = filesIn({
        'eval.yml': evalFile({ dataset: { _type: 'json', file_path: '../../etc/passwd' } }),
        'data.json': dataset,
      });
      await expect(runEvaluation(t, join(dir, 'eval.yml'))).rejects.toThrow(
        /eval\.yml:\d+: eval\.general\.dataset\.file_path: (must name a file inside|no such file)/,
      );
    } finally {
      await t.close();
    }
  });
});
