import type { Interrupt } from '@ag-ui/core';
import type { Prompt, PromptOption } from '../runtime/prompts';
import { checkedArguments, ToolInputError, type JsonSchema } from '../runtime/tools/json-schema';

/** What the thread remembers of one interrupt it raised, to check and apply the resume. */
export interface PendingInterrupt {
  interrupt: Interrupt;
  kind: 'prompt' | 'oauth';
  executionId: string;
  prompt?: Prompt;
  /** The interrupt expires at (epoch ms); never when absent. */
  expiresAt?: number;
  /** `ask_confirmation`: the payload is `{approved, editedArgs?, feedback?}`. */
  approval?: { targetTool?: string };
}

export const OAUTH_REASON = 'interlude:oauth';

const APPROVAL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    editedArgs: { type: 'object', description: 'Full replacement of the tool args. Not merged.' },
    feedback: { type: 'string', description: 'What to change, when not approved' },
  },
  required: ['approved'],
  additionalProperties: false,
};

const CONFIRMATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { approved: { type: 'boolean' } },
  required: ['approved'],
  additionalProperties: false,
};

const ids = (options: PromptOption[] = []) => options.map((o) => o.id);

/** The JSON Schema of an answer to a prompt of this type. */
function schemaOf(prompt: Prompt): JsonSchema {
  switch (prompt.input_type) {
    case 'binary_choice':
      return CONFIRMATION_SCHEMA;
    case 'radio':
    case 'dropdown':
      return { type: 'string', enum: ids(prompt.options) };
    case 'checkbox':
      return { type: 'array', items: { type: 'string', enum: ids(prompt.options) }, uniqueItems: true };
    default:
      return prompt.required === false ? { type: 'string' } : { type: 'string', minLength: 1 };
  }
}

/** Whether a tool call asks `ask_confirmation`'s question (radio yes / no / no_with_feedback), whatever its name. */
function isApproval(prompt: Prompt, toolName: string | undefined): boolean {
  return toolName !== undefined && ids(prompt.options).join() === 'yes,no,no_with_feedback';
}

/** An interrupt for a prompt; tool-bound when the prompt was asked inside a tool call already emitted. */
export function promptInterrupt(
  executionId: string,
  interactionId: string,
  prompt: Prompt,
  tool: { toolCallId: string; name: string; args: unknown } | undefined,
  now = Date.now(),
): PendingInterrupt {
  const approval = isApproval(prompt, tool?.name);
  const reason = tool
    ? 'tool_call'
    : prompt.input_type === 'binary_choice'
      ? 'confirmation'
      : 'input_required';
  const expiresAt = prompt.timeout === null ? undefined : now + prompt.timeout * 1000;
  const nat: Record<string, unknown> = { input_type: prompt.input_type };
  if (prompt.options) nat.options = prompt.options;
  if (prompt.placeholder) nat.placeholder = prompt.placeholder;
  if (prompt.required !== undefined) nat.required = prompt.required;
  if (prompt.allow_cancel !== undefined) nat.allow_cancel = prompt.allow_cancel;
  const interrupt: Interrupt = {
    id: interactionId,
    reason,
    message: prompt.text,
    responseSchema: approval ? APPROVAL_SCHEMA : schemaOf(prompt),
    metadata: { nat: nat, interlude: { executionId, interactionId } },
  };
  if (tool) interrupt.toolCallId = tool.toolCallId;
  if (expiresAt !== undefined) interrupt.expiresAt = new Date(expiresAt).toISOString();
  const targetTool = (tool?.args as { target_tool?: unknown } | undefined)?.target_tool;
  return {
    interrupt,
    kind: 'prompt',
    executionId,
    prompt,
    expiresAt,
    approval: approval ? { targetTool: typeof targetTool === 'string' ? targetTool : undefined } : undefined,
  };
}

/** An OAuth consent: the person completes it in the browser at `authUrl`, then resumes. */
export function oauthInterrupt(executionId: string, state: string, authUrl: string, provider: string) {
  const interrupt: Interrupt = {
    id: `oauth-${state}`,
    reason: OAUTH_REASON,
    message: `Authorize access to ${provider}`,
    responseSchema: { type: 'object', properties: {}, additionalProperties: true },
    metadata: { authUrl, provider, interlude: { executionId } },
  };
  return { interrupt, kind: 'oauth' as const, executionId };
}

/** Why a payload does not fit its interrupt's schema; undefined when it fits. */
export function payloadProblem(pending: PendingInterrupt, payload: unknown): string | undefined {
  const schema = pending.interrupt.responseSchema as JsonSchema | undefined;
  if (!schema) return undefined;
  if (payload === undefined) return 'payload is required for a resolved interrupt';
  try {
    checkedArguments(schema, payload);
    return undefined;
  } catch (err) {
    if (err instanceof ToolInputError) return err.message.replace(/^Invalid arguments: /, '');
    throw err;
  }
}

function option(prompt: Prompt, id: string): PromptOption {
  const found = prompt.options?.find((o) => o.id === id);
  if (!found) throw new Error(`no option ${id}`);
  return found;
}

/** The NAT-shaped answer (`POST …/response` body) a resolved payload stands for. */
export function answerFor(pending: PendingInterrupt, payload: unknown): Record<string, unknown> {
  const prompt = pending.prompt!;
  if (pending.approval) {
    const p = payload as { approved: boolean; editedArgs?: unknown; feedback?: string };
    if (!p.approved) {
      return p.feedback
        ? { type: 'radio', selected_option: option(prompt, 'no_with_feedback'), text: p.feedback }
        : { type: 'radio', selected_option: option(prompt, 'no') };
    }
    const yes = { type: 'radio', selected_option: option(prompt, 'yes') };
    // AG-UI approve-with-edits: the approved tool's next call runs with exactly these arguments.
    return p.editedArgs === undefined ? yes : { ...yes, edited_args: p.editedArgs };
  }
  switch (prompt.input_type) {
    case 'binary_choice': {
      const [yes, no] = prompt.options!;
      return {
        type: 'binary_choice',
        selected_option: (payload as { approved: boolean }).approved ? yes : no,
      };
    }
    case 'radio':
    case 'dropdown':
      return { type: prompt.input_type, selected_option: option(prompt, payload as string) };
    case 'checkbox':
      return { type: 'checkbox', selected_options: (payload as string[]).map((id) => option(prompt, id)) };
    default:
      return { type: 'text', text: payload as string };
  }
}
