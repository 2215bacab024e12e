import { symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError } from '../../config/config.loader';
import { builtinRegistry } from '../../runtime/builtin-functions';
import { parse } from '../../../test/utils/config-helpers';
import { aFolder, EXAMPLES, filesIn } from '../../../test/utils/eval-runner';
import { insideFolder, loadEvaluationFile } from './evaluation-file.loader';

const ECHO = 'workflow:\n  _type: echo\n';
const served = parse(
  `llms:\n  served_model: { _type: openai, model_name: m }\n  judge: { _type: openai, model_name: j }\n${ECHO}`,
);
const DATA = JSON.stringify([{ id: 1, question: 'q', answer: 'a' }]);

async function loadErrorOf(files: Record<string, string>): Promise<ConfigError> {
  const dir = filesIn(files);
  try {
    await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry());
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

  // The eval section never stops serve (NAT's evaluators are mostly Python): its problems are warnings.
  const warningAt = (warnings: string[], path: string) => {
    const found = warnings.find((w) => w.startsWith(`app.yml:`) && w.split(': ')[1] === path);
    if (!found) throw new Error(`no warning at ${path}; found:\n${warnings.join('\n')}`);
    return found;
  };
  const NOT_OFFERED = "; the eval section's evaluators are not offered";

  it('warns about each bad evaluator with its path and line, and offers none: unknown type, unknown field, bad pattern, unknown model', () => {
    const config = parse(
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
    expect(config.eval).toBeUndefined();
    const { warnings } = config;
    expect(warningAt(warnings, 'eval.evaluators.ragas._type')).toBe(
      `app.yml:5: eval.evaluators.ragas._type: unknown _type "ragas"; known types: exact_match, contains, regex, trajectory, llm_judge${NOT_OFFERED}`,
    );
    expect(warningAt(warnings, 'eval.evaluators.exact.ignore_case')).toContain(
      'Extra inputs are not permitted',
    );
    expect(warningAt(warnings, 'eval.evaluators.pattern.pattern')).toMatch(/Invalid regular expression/);
    expect(warningAt(warnings, 'eval.evaluators.judge.llm_name')).toContain(
      'no entry "nowhere" in llms, and llms: declares none',
    );
    expect(warningAt(warnings, 'eval.evaluators.workflow')).toContain('not "workflow"');
    expect(warningAt(warnings, 'eval.evaluators.flags.flags')).toContain('a flag is given twice');
  });

  it('bounds regex patterns and max_concurrency', () => {
    const { warnings } = parse(
      `${ECHO}eval:\n  general:\n    max_concurrency: 1000\n  evaluators:\n    r: { _type: regex, pattern: '${'a'.repeat(1001)}' }\n`,
    );
    expect(warningAt(warnings, 'eval.general.max_concurrency')).toContain(
      'Input should be less than or equal to 64',
    );
    expect(warningAt(warnings, 'eval.evaluators.r.pattern')).toContain('1000');
  });
});

describe('an evaluation file', () => {
  it('loads the shipped examples', async () => {
    const plan = await loadEvaluationFile(join(EXAMPLES, 'eval.yml'), served, builtinRegistry());
    expect([...plan.evaluators.keys()]).toEqual(['exact', 'mentions', 'plan_shape', 'tools']);
    expect(plan.datasetFile).toBe(join(EXAMPLES, 'dataset.json'));
    expect(plan.workflow?.type).toBe('scripted');
    const judged = await loadEvaluationFile(join(EXAMPLES, 'llm-judge.yml'), served, builtinRegistry());
    // Its judge is the served config's `judge`: the file declares no model of its own.
    expect([...judged.llms.keys()]).toEqual([]);
    expect([...judged.evaluators.keys()]).toEqual(['exact', 'judge']);
  });

  it('may name a judge model of the served config', async () => {
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    dataset: { _type: json, file_path: d.json }\n  evaluators:\n    j: { _type: llm_judge, llm_name: served_model }\n',
      'd.json': DATA,
    });
    const plan = await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry());
    expect(plan.llms.size).toBe(0);
    expect(plan.workflow).toBeUndefined();
  });

  it('reports every problem at once with its line: stray sections, a bad model, a placeholder', async () => {
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
        "6: eval.general.max_concurrency: ${CONCURRENCY}: an evaluation file is not expanded from the server's environment; write the value itself, or name a model of the served config (whose placeholders expand)",
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
      await loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry());
    } catch (e) {
      problems = lines(e as ConfigError);
    }
    expect(problems).toEqual([
      "4: eval.general.dataset.file_path: must name a file inside the evaluation file's folder",
      '3: eval.general.workflow_config_file: must be a path relative to the evaluation file',
    ]);
    // A name beside the folder that nothing else uses (`../x` was a clone of this repository once).
    const absent = `../${basename(dir)}-absent`;
    expect(insideFolder(dir, absent)).toEqual({ problem: `no such file: ${absent}` });
  });

  it('a file a caller names widens nothing: its general.outbound and ${VAR} are refused with their lines', async () => {
    const err = await loadErrorOf({
      'eval.yml': [
        'general:',
        '  outbound: { allow_hosts: [0.0.0.0/0] }',
        'llms:',
        '  m: { _type: openai, model_name: m, api_key: "${JUDGE_KEY}" }',
        'workflow: { _type: echo }',
        'eval:',
        '  general:',
        '    dataset: { _type: json, file_path: d.json }',
      ].join('\n'),
      'd.json': DATA,
    });
    expect(lines(err)).toEqual([
      "2: general.outbound: an evaluation file cannot change where the server sends requests: the served config's general.outbound applies (list hosts in its allow_hosts)",
      "4: llms.m.api_key: ${JUDGE_KEY}: an evaluation file is not expanded from the server's environment; write the value itself, or name a model of the served config (whose placeholders expand)",
    ]);
  });

  it('a workflow_config_file is caller-named too', async () => {
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    workflow_config_file: wf.yml\n    dataset: { _type: json, file_path: d.json }\n',
      'wf.yml': 'general:\n  outbound: { allow_hosts: [10.0.0.0/8] }\nworkflow:\n  _type: echo\n',
      'd.json': DATA,
    });
    await expect(loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry())).rejects.toThrow(
      /wf\.yml:2: general\.outbound: an evaluation file cannot change where the server sends requests/,
    );
  });

  it("a workflow_config_file's own problems name that file", async () => {
    const dir = filesIn({
      'eval.yml':
        'eval:\n  general:\n    workflow_config_file: wf.yml\n    dataset: { _type: json, file_path: d.json }\n',
      'wf.yml': 'workflow:\n  _type: nope\n',
      'd.json': DATA,
    });
    await expect(loadEvaluationFile(join(dir, 'eval.yml'), served, builtinRegistry())).rejects.toThrow(
      /wf\.yml:2: workflow\._type: unknown _type "nope"/,
    );
  });

  it('a YAML syntax error names its line', async () => {
    expect(lines(await loadErrorOf({ 'eval.yml': 'eval:\n  general: [\n' }))[0]).toMatch(/^\d+: : /);
  });
});
