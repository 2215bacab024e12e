import { IsNumber, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { PromptTimeoutError, type PromptAnswer } from '../prompts';
import type { PromptRequest, WorkflowContext } from '../workflow-context';
import { ToolConfig } from './define-tool';

/** interactive-tools.txt's InteractionResponse: what the model reads after a person answered. */
export interface InteractionResponse {
  interaction_id: string;
  selected_option_id: string | null;
  free_text: string | null;
  confirmed: boolean | null;
  cancelled: boolean;
  /** Beyond the spec: an approval's replacement arguments; the approved tool runs with exactly these. */
  edited_args?: Record<string, unknown>;
}

export type Reading = Omit<InteractionResponse, 'interaction_id' | 'cancelled'>;

export class InteractionToolConfig extends ToolConfig {
  /** Seconds the person has to answer; then the model reads `cancelled: true`. No limit by default. */
  @IfPresent() @IsNumber() @Min(0.001) timeout_seconds?: number;
}

/**
 * Asks a person through the execution's prompt machinery (202, `interaction_required`, WebSocket) and
 * turns the answer into an InteractionResponse. Free text and cancel are always allowed (the spec's
 * hard-coded policy); a cancel or a timeout is an answer too, never a failure of the run.
 */
export async function askPerson(
  ctx: WorkflowContext,
  prompt: Omit<PromptRequest, 'allow_free_text' | 'allow_cancel' | 'timeout'>,
  config: InteractionToolConfig,
  read: (answer: Exclude<PromptAnswer, { type: 'cancel' }>) => Reading,
): Promise<InteractionResponse> {
  // Journaled: a replay after a takeover waits on the same interaction.
  const interactionId = await ctx.uuid();
  const cancelled: InteractionResponse = {
    interaction_id: interactionId,
    selected_option_id: null,
    free_text: null,
    confirmed: null,
    cancelled: true,
  };
  try {
    const answer = await ctx.prompt(
      { ...prompt, allow_free_text: true, allow_cancel: true, timeout: config.timeout_seconds ?? null },
      { interactionId },
    );
    if (answer.type === 'cancel') return cancelled;
    return { interaction_id: interactionId, ...read(answer), cancelled: false };
  } catch (err) {
    if (err instanceof PromptTimeoutError) return cancelled;
    throw err;
  }
}

/** The option chosen and the text typed, whatever the prompt type. */
export function chosen(answer: Exclude<PromptAnswer, { type: 'cancel' }>): {
  option: string | null;
  text: string | null;
} {
  switch (answer.type) {
    case 'text':
      return { option: null, text: answer.text };
    case 'binary_choice':
    case 'radio':
    case 'dropdown':
      return { option: answer.selected_option.id, text: answer.text ?? null };
    case 'checkbox':
      return { option: answer.selected_options[0]?.id ?? null, text: answer.text ?? null };
    default:
      return { option: null, text: null };
  }
}
