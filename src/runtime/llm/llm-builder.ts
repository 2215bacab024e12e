import { validatePlain } from '../../core/validation/validation-issues';
import type { OutboundPolicy } from '../../core/outbound/outbound-policy';
import type { ConfigProblem } from '../function-type';
import { LlmClient } from './llm-client';
import { takeNatFields, type NatFieldNote } from '../nat-fields';
import { DYNAMO_NAT_FIELDS, LLM_NAT_FIELDS, LLM_TYPES, LlmConfig } from './llm.config';
import { policyLlmFetch } from './policy-llm-fetch';

/**
 * Builds one `llms:` entry, or says what is wrong with it (`loc` relative to the entry). NAT's `model`
 * is accepted for `model_name`, NAT's other fields as LLM_NAT_FIELDS says. API keys not given in the file come from `env`.
 * With `policy` (a model a caller's file declares, not the operator's), its endpoint must pass it.
 */
export function buildLlm(
  name: string,
  entry: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  policy?: OutboundPolicy,
): { llm: LlmClient; notes: NatFieldNote[] } | { problems: ConfigProblem[] } {
  if (!(LLM_TYPES as readonly unknown[]).includes(entry._type)) {
    const message = `unknown _type "${String(entry._type)}"; known types: ${LLM_TYPES.join(', ')}`;
    return { problems: [{ loc: ['_type'], message }] };
  }
  const { settings, notes } = takeNatFields(
    entry,
    { renamed: { model: 'model_name' } },
    LLM_NAT_FIELDS,
    entry._type === 'dynamo' ? DYNAMO_NAT_FIELDS : undefined,
  );
  const checked = validatePlain(LlmConfig, settings, [], { forbidUnknown: true });
  if (!checked.ok) return { problems: checked.issues.map((i) => ({ loc: i.loc, message: i.msg })) };
  const send = policy ? policyLlmFetch(policy, checked.value.timeout_seconds + 1) : undefined;
  return { llm: new LlmClient(name, checked.value, env, send), notes };
}
