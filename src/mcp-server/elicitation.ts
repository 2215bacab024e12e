import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Prompt, PromptOption } from '../runtime/prompts';

type FieldSchema = Record<string, unknown>;

export const RESPONSE_URL_META = 'interlude/response_url';
export const EXECUTION_META = 'interlude/execution_id';
export const INTERACTION_META = 'interlude/interaction_id';

/** The option ids of a choice prompt, their labels as titles (MCP 2025-11-25 titled enums). */
const titled = (options: PromptOption[] = []) => options.map((o) => ({ const: o.id, title: o.label }));

/** The one field a person fills in for a prompt of each type (docs/mcp-server.md has the table). */
function fieldOf(prompt: Prompt): [string, FieldSchema] | undefined {
  const required = prompt.required !== false;
  switch (prompt.input_type) {
    case 'notification':
      return undefined;
    case 'binary_choice': {
      const [yes, no] = prompt.options ?? [];
      return [
        'approved',
        {
          type: 'boolean',
          title: yes?.label,
          description: `Checked: ${yes?.label}; unchecked: ${no?.label}`,
        },
      ];
    }
    case 'radio':
    case 'dropdown':
      return ['selected_option', { type: 'string', title: 'Choose one', oneOf: titled(prompt.options) }];
    case 'checkbox':
      return [
        'selected_options',
        {
          type: 'array',
          title: 'Choose any',
          items: { anyOf: titled(prompt.options) },
          ...(required ? { minItems: 1 } : {}),
        },
      ];
    default:
      return [
        'text',
        { type: 'string', title: prompt.placeholder || 'Answer', ...(required ? { minLength: 1 } : {}) },
      ];
  }
}

/**
 * The form-mode `elicitation/create` that asks a prompt; `_meta` names where else it may be answered
 * (`POST {response_url}`, as on every face), the first answer winning.
 */
export function elicitationOf(
  prompt: Prompt,
  responseUrl: string,
  executionId: string,
  interactionId: string,
): ElicitRequestFormParams {
  const field = fieldOf(prompt);
  const properties: Record<string, FieldSchema> = field ? { [field[0]]: field[1] } : {};
  const required = field && (prompt.input_type === 'binary_choice' || prompt.required !== false);
  return {
    mode: 'form',
    message: prompt.text,
    _meta: {
      [RESPONSE_URL_META]: responseUrl,
      [EXECUTION_META]: executionId,
      [INTERACTION_META]: interactionId,
    },
    requestedSchema: {
      type: 'object',
      properties,
      ...(required ? { required: [field[0]] } : {}),
    } as ElicitRequestFormParams['requestedSchema'],
  };
}

const option = (prompt: Prompt, id: unknown) => prompt.options?.find((o) => o.id === id) ?? { id };

/** The NAT answer (`POST …/response` body) an accepted elicitation stands for. */
export function answerOf(prompt: Prompt, result: ElicitResult): Record<string, unknown> {
  const content = result.content ?? {};
  switch (prompt.input_type) {
    case 'notification':
      return { type: 'notification' };
    case 'binary_choice': {
      const [yes, no] = prompt.options ?? [];
      return { type: 'binary_choice', selected_option: content.approved === true ? yes : no };
    }
    case 'radio':
    case 'dropdown':
      return { type: prompt.input_type, selected_option: option(prompt, content.selected_option) };
    case 'checkbox': {
      const ids = Array.isArray(content.selected_options) ? content.selected_options : [];
      return { type: 'checkbox', selected_options: ids.map((id) => option(prompt, id)) };
    }
    default:
      return { type: 'text', text: typeof content.text === 'string' ? content.text : '' };
  }
}
