import { randomUUID } from 'node:crypto';
import type { ExecutionEventBody } from '../../src/core/events/execution-event';
import type { Identity } from '../../src/core/identity/identity';
import type { ExecutionRecord, InteractionRecord } from '../../src/executions/execution-record';
import { DEFAULT_PROMPT_ERROR, type Prompt, type PromptOption } from '../../src/runtime/prompts';

/** An execution that has just started, owned by nobody unless `overrides` says so. */
export function anExecutionRecord(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const now = Date.now();
  return {
    id: randomUUID(),
    traceId: randomUUID(),
    ownerId: null,
    workflow: 'scripted',
    status: 'running',
    interactive: true,
    createdAt: now,
    updatedAt: now,
    interactions: {},
    ...overrides,
  };
}

export function anIdentity(userId: string | null = 'alice'): Identity {
  return { userId, source: userId === null ? 'anonymous' : 'api_key', claims: {} };
}

export const options = (...ids: string[]): PromptOption[] =>
  ids.map((id) => ({ id, label: id.toUpperCase(), value: `v${id}` }));

/** A prompt as `toPrompt` makes it: NAT's defaults filled in; choice prompts get options a, b, c. */
export function aPrompt(input_type: Prompt['input_type'], overrides: Partial<Prompt> = {}): Prompt {
  const prompt: Prompt = {
    input_type,
    text: `A ${input_type} question`,
    timeout: null,
    error: DEFAULT_PROMPT_ERROR,
  };
  if (input_type === 'text') Object.assign(prompt, { placeholder: null, required: true });
  if (input_type === 'binary_choice') Object.assign(prompt, { options: options('y', 'n'), required: true });
  else if (['radio', 'checkbox', 'dropdown'].includes(input_type))
    Object.assign(prompt, { options: options('a', 'b', 'c'), required: true });
  return { ...prompt, ...overrides };
}

export function anOpenInteraction(prompt: Prompt = aPrompt('text')): InteractionRecord {
  return { prompt, status: 'open', deadline: null };
}

/** The execution side of an `ask`: records what it publishes, and says when the prompt went out. */
export class AskingExecution {
  readonly events: ExecutionEventBody[] = [];
  private asked!: () => void;
  /** Resolves once `interaction_required` is published (the interaction is open in the store by then). */
  readonly prompted = new Promise<void>((resolve) => (this.asked = resolve));

  constructor(readonly id: string) {}

  publish = (event: ExecutionEventBody): void => {
    this.events.push(event);
    if (event.kind === 'interaction_required') this.asked();
  };
}
