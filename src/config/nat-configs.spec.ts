import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinRegistry } from '../runtime/builtin-functions';
import { ConfigError, loadConfig } from './config.loader';
import { errorOf, parse, problemAt } from '../../test/utils/config-helpers';

const LLM = 'llms:\n  nim_llm: { _type: nim, model_name: m, api_key: k }\n';

describe('NeMo Agent Toolkit configs', () => {
  it('still reports a field NAT does not have either, as a typo', () => {
    const err = errorOf(
      `${LLM}workflow:\n  _type: react_agent\n  llm_name: nim_llm\n  parse_agent_response_max_retires: 3\n`,
    );
    expect(problemAt(err, 'workflow.parse_agent_response_max_retires').message).toBe(
      'Extra inputs are not permitted',
    );
  });

  it('reads an LLM field NAT does not have as a typo too', () => {
    const err = errorOf(
      'llms:\n  m: { _type: nim, model_name: m, chat_template_kwarg: {} }\nworkflow: { _type: echo }\n',
    );
    expect(problemAt(err, 'llms.m.chat_template_kwarg').message).toBe('Extra inputs are not permitted');
  });

  it('loads the dynamo LLM (OpenAI-compatible), its routing hints warned about', () => {
    const config = parse(
      'llms:\n  d: { _type: dynamo, model_name: m, base_url: "http://127.0.0.1:8099/v1", enable_nvext_hints: true, request_timeout: 30 }\nworkflow: { _type: echo }\n',
    );
    expect(config.llms.get('d')!.endpoint).toBe('http://127.0.0.1:8099/v1');
    expect(config.warnings).toEqual([
      expect.stringMatching(
        /^app\.yml:2: llms\.d\.enable_nvext_hints: ignored: Dynamo's nvext routing hints/,
      ),
    ]);
  });

  it('an eval section it cannot use is a warning, never a start-up failure', () => {
    const config = parse(
      `${LLM}workflow: { _type: echo }\neval:\n  evaluators:\n    rag: { _type: ragas, metric: AnswerAccuracy, llm_name: nim_llm }\n`,
    );
    expect(config.eval).toBeUndefined();
    expect(config.warnings).toEqual([
      'app.yml:6: eval.evaluators.rag._type: unknown _type "ragas"; known types: exact_match, contains, regex, trajectory, llm_judge; the eval section\'s evaluators are not offered',
    ]);
  });

  it("accepts the trajectory evaluator's llm_name, ignored with a warning", () => {
    const config = parse(
      `${LLM}workflow: { _type: echo }\neval:\n  evaluators:\n    t: { _type: trajectory, llm_name: nim_llm }\n`,
    );
    expect(config.eval!.evaluators.get('t')).toMatchObject({ _type: 'trajectory' });
    expect(config.warnings[0]).toContain(
      'eval.evaluators.t.llm_name: ignored: the trajectory evaluator compares',
    );
  });

  it("NAT's mcp front end and its optimizer section are accepted: the HTTP server on its host and port", () => {
    const config = parse(
      'general:\n  front_end: { _type: mcp, name: calc, port: 9901 }\n  telemetry: { enabled: true }\noptimizer: { reps_per_param_set: 3 }\nworkflow: { _type: echo }\n',
    );
    expect(config.settings.general.front_end).toMatchObject({ _type: 'http', port: 9901 });
    expect(config.warnings.map((w) => w.split(': ignored: ')[0])).toEqual([
      'app.yml:3: general.telemetry.enabled',
      'app.yml:4: optimizer',
      'app.yml:2: general.front_end._type',
    ]);
    expect(config.warnings[2]).toContain('its fields name are not used');
  });

  it('per_user_react_agent gives each user an instance of their own', () => {
    const config = parse(
      `${LLM}function_groups:\n  calculator: { _type: calculator }\nworkflow: { _type: per_user_react_agent, llm_name: nim_llm, tool_names: [calculator] }\n`,
    );
    expect(config.perUser).toBe(true);
    expect(config.groups.get('calculator')!.functions().has('calculator__compare')).toBe(true);
  });

  it('the calculator group offers only what include lists', () => {
    const config = parse(
      'function_groups:\n  calc: { _type: calculator, include: [add] }\nworkflow: { _type: echo }\n',
    );
    expect([...config.groups.get('calc')!.functions().keys()]).toEqual(['calc__add']);
  });

  describe('base: inheritance', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'interlude-base-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("merges the file over its base (mappings key by key, lists replaced), as NAT's yaml_load does", () => {
      writeFileSync(
        join(dir, 'base.yml'),
        'general:\n  front_end: { port: 8100, host: 0.0.0.0 }\nworkflow: { _type: echo, description: base }\n',
      );
      writeFileSync(join(dir, 'child.yml'), 'base: base.yml\ngeneral:\n  front_end: { port: 8200 }\n');
      const config = loadConfig(join(dir, 'child.yml'), builtinRegistry(), {});
      expect(config.settings.general.front_end).toMatchObject({ port: 8200, host: '0.0.0.0' });
      expect(config.workflow.description).toBe('base');
    });

    it('names a missing base and a cycle', () => {
      writeFileSync(join(dir, 'a.yml'), 'base: b.yml\n');
      writeFileSync(join(dir, 'b.yml'), 'base: a.yml\n');
      writeFileSync(join(dir, 'c.yml'), 'base: nowhere.yml\n');
      const messageOf = (file: string) => {
        try {
          loadConfig(join(dir, file), builtinRegistry(), {});
        } catch (err) {
          return (err as ConfigError).message;
        }
        throw new Error('expected a ConfigError');
      };
      expect(messageOf('a.yml')).toContain('is already in the inheritance chain');
      expect(messageOf('c.yml')).toContain(`base: cannot load ${join(dir, 'nowhere.yml')}`);
    });
  });
});
