import { validatePlain } from '../../core/validation/validation-issues';
import type { ConfigProblem } from '../function-type';
import { LlmClient } from './llm-client';
import { LLM_TYPES, LlmConfig } from './llm.config';

/**
 * Builds one `llms:` entry, or says what is wrong with it (`loc` relative to the entry). NAT's `model`
 * is accepted for `model_name`. API keys not given in the file come from `env`.
 */
export function buildLlm(
  name: string,
  entry: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { llm: LlmClient } | { problems: ConfigProblem[] } {
  if (!(LLM_TYPES as readonly unknown[]).includes(entry._type)) {
    const message = `unknown _type "${String(entry._type)}"; known types: ${LLM_TYPES.join(', ')}`;
    return { problems: [{ loc: ['_type'], message }] };
  }
  const { model, ...rest } = entry;
  const settings =
    model !== undefined && rest.model_name === undefined ? { ...rest, model_name: model } : entry;
  const checked = validatePlain(LlmConfig, settings, [], { forbidUnknown: true });
  if (!checked.ok) return { problems: checked.issues.map((i) => ({ loc: i.loc, message: i.msg })) };
  return { llm: new LlmClient(name, checked.value, env) };
}
