import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/config.loader';
import { builtinRegistry } from '../../runtime/builtin-functions';
import { errorOf, parse, problemAt } from '../../../test/utils/config-helpers';
import { aFolder, EXAMPLES, filesIn } from '../../../test/utils/eval-runner';
import { insideFolder, loadEvaluationFile } from './evaluation-file.loader';

const ECHO = 'workflow:\n  _type: echo\n';
const served = parse(`llms:\n  served_model: { _type: openai, model_name: m }\n${ECHO}`);
const DATA = JSON.stringify([{ id: 1, question: 'q', answer: 'a' }]);

async function loadErrorOf(files: Record<string, string>, env: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  const dir = filesIn(files);
  try {
    await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry(), env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected the evaluation file to be refused');
}

const lines = (err: ConfigError) => err.problems.map((p) => `${p.line ?? '-'}: ${p.path}: ${p.message}`);

describe('the eval section of the served config', () => {
  it('loads evaluators by name, NeMo Agent Toolkit layout', () => {
    const config = parse(
      `${ECHO}eval:\n  general:\n    output_dir: /tmp/out\n  evaluators:\n    exact: { _type: exact_match, case_sensitive: false }\n`,
    );
    expect(config.eval?.general.output_dir).toBe('/tmp/out');
    expect([...config.eval!.evaluators.keys()]).toEqual(['exact']);
  });

  it('reports each bad evaluator with its path and line: unknown type, unknown field, bad pattern, unknown model', () => {
    const err = errorOf(
      [
        ECHO.trimEnd(),
        'eval:',
        '  evaluators:',
        '    ragas: { _type: ragas }',
        '    exact: { _type: exact_match, ignore_case: true }',
        "    pattern: { _type: regex, pattern: '(' }",
        '    judge: { _type: llm_judge, llm_name: nowhere }',
        '    workflow: { _type: contains }',
        "    flags: { _type: regex, flags: 'ii' }",
      ].join('\n'),
    );
    expect(problemAt(err, 'eval.evaluators.ragas._type')).toEqual({
      path: 'eval.evaluators.ragas._type',
      line: 5,
      message: 'unknown _type "ragas"; known types: exact_match, contains, regex, trajectory, llm_judge',
    });
    expect(problemAt(err, 'eval.evaluators.exact.ignore_case').message).toBe(
      'Extra inputs are not permitted',
    );
    expect(problemAt(err, 'eval.evaluators.pattern.pattern').message).toMatch(/Invalid regular expression/);
    expect(problemAt(err, 'eval.evaluators.judge.llm_name').message).toBe(
      'no entry "nowhere" in llms, and llms: declares none',
    );
    expect(problemAt(err, 'eval.evaluators.workflow').message).toContain('not "workflow"');
    expect(problemAt(err, 'eval.evaluators.flags.flags').message).toBe('a flag is given twice');
  });

  it('bounds regex patterns and max_concurrency', () => {
    const err = errorOf(
      `${ECHO}eval:\n  general:\n    max_concurrency: 1000\n  evaluators:\n    r: { _type: regex, pattern: '${'a'.repeat(1001)}' }\n`,
    );
    expect(problemAt(err, 'eval.general.max_concurrency').message).toBe(
      'Input should be less than or equal to 64',
    );
    expect(problemAt(err, 'eval.evaluators.r.pattern').message).toContain('1000');
  });
});

describe('an evaluation file', () => {
  it('loads the shipped examples', async () => {
    const plan = await loadEvaluationFile(join(EXAMPLES, 'eval.yml'), served, builtinRegistry(), {});
    expect([...plan.evaluators.keys()]).toEqual(['exact', 'mentions', 'plan_shape', 'tools']);
    expect(plan.datasetFile).toBe(join(EXAMPLES, 'dataset.json'));
    expect(plan.workflow?.type).toBe('scripted');
    const judged = await loadEvaluationFile(join(EXAMPLES, 'llm-judge.yml'), served, builtinRegistry(), {});
    expect([...judged.llms.keys()]).toEqual(['judge']);
  });

  it('may name a judge model of the served config', async () => {
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    dataset: { _type: json, file_path: d.json }\n  evaluators:\n    j: { _type: llm_judge, llm_name: served_model }\n',
      'd.json': DATA,
    });
    const plan = await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry(), {});
    expect(plan.llms.size).toBe(0);
    expect(plan.workflow).toBeUndefined();
  });

  it('reports every problem at once with its line: no dataset, stray sections, a bad model, a missing variable', async () => {
    const err = await loadErrorOf({
      'eval.yml': [
        'functions: {}',
        'llms:',
        '  judge: { _type: openai }',
        'eval:',
        '  general:',
        '    max_concurrency: ${CONCURRENCY}',
        '  evaluators:',
        '    j: { _type: llm_judge, llm_name: judge }',
      ].join('\n'),
    });
    expect(err.message).toMatch(/^Invalid config .*eval\.yml:\n/);
    expect(lines(err)).toEqual(
      expect.arrayContaining([
        '6: eval.general.max_concurrency: environment variable CONCURRENCY is not set and has no default (${CONCURRENCY:-default})',
        '1: functions: an evaluation file without a workflow: section is read for eval and llms only',
        '3: llms.judge.model_name: Field required',
      ]),
    );
  });

  it('needs an eval section and a dataset', async () => {
    expect(lines(await loadErrorOf({ 'eval.yml': 'llms: {}\n' }))).toEqual([
      '1: eval: an evaluation file needs an eval section',
    ]);
    expect(lines(await loadErrorOf({ 'eval.yml': 'eval:\n  evaluators: {}\n' }))).toEqual([
      '2: eval.general.dataset: an evaluation needs a dataset',
    ]);
  });

  it('refuses dataset and workflow files outside its folder, symbolic links included', async () => {
    const outside = aFolder();
    writeFileSync(join(outside, 'secret.json'), DATA);
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    workflow_config_file: /etc/hostname\n    dataset: { _type: json, file_path: link.json }\n',
    });
    symlinkSync(join(outside, 'secret.json'), join(dir, 'link.json'));
    let problems: string[] = [];
    try {
      await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry(), {});
    } catch (e) {
      problems = lines(e as ConfigError);
    }
    expect(problems).toEqual([
      "4: eval.general.dataset.file_path: must name a file inside the evaluation file's folder",
      '3: eval.general.workflow_config_file: must be a path relative to the evaluation file',
    ]);
    expect(insideFolder(dir, '../x')).toEqual({ problem: 'no such file: ../x' });
  });

  it("a workflow_config_file's own problems name that file", async () => {
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    workflow_config_file: wf.yml\n    dataset: { _type: json, file_path: d.json }\n',
      'wf.yml': 'workflow:\n  _type: nope\n',
      'd.json': DATA,
    });
    await expect(loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry(), {})).rejects.toThrow(
      /wf\.yml:2: workflow\._type: unknown _type "nope"/,
    );
  });

  it('a YAML syntax error names its line', async () => {
    expect(lines(await loadErrorOf({ 'eval.yml': 'eval:\n  general: [\n' }))[0]).toMatch(/^\d+: : /);
  });
});
