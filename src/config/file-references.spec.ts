import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinRegistry } from '../runtime/builtin-functions';
import { ConfigError, loadConfig } from './config.loader';

const LLM = 'llms:\n  m: { _type: nim, model_name: m, api_key: k }\n';

describe("NAT's file:// values", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'file-ref-'));
    mkdirSync(join(dir, 'configs'));
    mkdirSync(join(dir, 'prompts'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (yaml: string) => {
    const file = join(dir, 'configs', 'config.yml');
    writeFileSync(file, yaml);
    return loadConfig(file, builtinRegistry(), {});
  };
  const problems = (yaml: string) => {
    try {
      load(yaml);
    } catch (err) {
      return (err as ConfigError).problems.map((p) => `${p.path}: ${p.message}`);
    }
    throw new Error('the config loaded');
  };

  it('reads a system prompt from a file beside the config (relative to the config file)', () => {
    writeFileSync(join(dir, 'prompts', 'system.txt'), 'Tools: {tools}\nNames: {tool_names}');
    const config = load(
      `${LLM}workflow:\n  _type: react_agent\n  llm_name: m\n  system_prompt: file://../prompts/system.txt\n`,
    );
    expect(config.settings).toBeDefined();
    expect(config.workflow.type).toBe('react_agent');
  });

  it('refuses an extension that is not text (a key or code file), naming the field', () => {
    writeFileSync(join(dir, 'prompts', 'key.pem'), 'secret');
    expect(
      problems(
        `${LLM}workflow:\n  _type: tool_calling_agent\n  llm_name: m\n  system_prompt: file://../prompts/key.pem\n`,
      ),
    ).toEqual([
      expect.stringMatching(
        /^workflow\.system_prompt: file:\/\/ may name only \.txt, .* files \(got "\.pem"\)$/,
      ),
    ]);
  });

  it('checks the extension of what a link points to', () => {
    writeFileSync(join(dir, 'prompts', 'key.pem'), 'secret');
    symlinkSync(join(dir, 'prompts', 'key.pem'), join(dir, 'prompts', 'looks.txt'));
    expect(
      problems(
        `${LLM}workflow:\n  _type: tool_calling_agent\n  llm_name: m\n  system_prompt: file://../prompts/looks.txt\n`,
      ),
    ).toEqual([expect.stringContaining('(got ".pem")')]);
  });

  it('names a missing file', () => {
    expect(
      problems(
        `${LLM}workflow:\n  _type: tool_calling_agent\n  llm_name: m\n  system_prompt: file://nope.txt\n`,
      ),
    ).toEqual([
      `workflow.system_prompt: file:// cannot read ${join(dir, 'configs', 'nope.txt')}: no such file`,
    ]);
  });
});
