import { stringify } from 'yaml';
import type { FakeLlm } from './fake-llm';

/** A config whose `llms.model` is the fake LLM (no retries unless asked), as YAML. */
export function agentYaml(
  llm: FakeLlm,
  workflow: Record<string, unknown>,
  functions: Record<string, unknown> = {},
  model: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): string {
  return stringify({
    llms: {
      model: {
        _type: 'openai',
        base_url: llm.url,
        model_name: 'fake-model',
        api_key: 'test-key',
        max_retries: 0,
        ...model,
      },
    },
    functions,
    workflow: { llm_name: 'model', ...workflow },
    ...extra,
  });
}

/** The built-in tools most tests give their agent. */
export const CALCULATOR = { calculator: { _type: 'calculator' } };
