import { randomUUID } from 'node:crypto';
import type { ExecutionEvent } from '../runtime/execution-event';
import { answerText, chunkText } from '../runtime/output-text';
import { resultText, type ChatUsage } from '../runtime/chat-completion';
import type { IntermediateStep } from '../runtime/intermediate-step';
import type { StepAdaptor } from '../runtime/step-adaptor';
import { isStreaming, type ReplyMessages, type SchemaType, type ServerMessage } from './ws-messages';

/** The connection a run is shown on, as far as rendering goes. */
interface Shown {
  send(message: ServerMessage): void;
}

/**
 * How a run's events read as NAT's WebSocket messages: steps, streamed text, the end, and the events a
 * re-attacher can no longer have. Prompts are not here: the run asks them itself, as it knows
 * which are still waiting and how much time they have left.
 */
export class WsRunRenderer {
  /** The tokens the run's model calls reported so far; null while none did. */
  private usage: ChatUsage | null = null;

  constructor(
    private readonly schema: SchemaType,
    private readonly adaptor: StepAdaptor,
    private readonly messages: ReplyMessages,
    /** Its execution: the trace id closes the run. */
    private readonly execution: { readonly traceId: string },
  ) {}

  render(listener: Shown, event: ExecutionEvent): void {
    const out = this.messages;
    switch (event.kind) {
      case 'step': {
        const step = this.adaptor.adapt(event.step);
        if (step) listener.send(out.intermediate(step));
        return;
      }
      case 'output':
        if (isStreaming(this.schema)) listener.send(out.response(chunkText(event.value), 'in_progress'));
        return;
      case 'completed':
        if (!isStreaming(this.schema) || !event.streamed)
          listener.send(out.response(this.answer(event.result), 'in_progress'));
        this.finish(listener);
        return;
      case 'failed':
        listener.send(out.error('workflow_error', event.error.type, event.error.message));
        this.finish(listener);
        return;
      case 'cancelled':
        listener.send(
          out.error('workflow_error', 'ExecutionCancelled', `Execution cancelled (${event.reason})`),
        );
        this.finish(listener);
        return;
      default:
        return;
    }
  }

  /**
   * Tells a re-attacher that `count` events it missed are gone (the event log is bounded), as the SSE
   * face's `event: events_dropped` does. NAT's schema has no message for it, so it is an intermediate step:
   * the NAT UI adds it to the answer's step list and goes on, and other clients render steps as
   * information. Not an `error_message`: NAT sends those when a run fails, and the UI shows them as
   * its failure, while this run goes on. Not a `system_response_message`: its text would be taken
   * into the answer. A fresh id, since the NAT UI replaces a step that has the id and name of another.
   */
  dropped(listener: Shown, count: number): void {
    const notice = this.messages.intermediate({
      id: randomUUID(),
      parent_id: null,
      name: 'Earlier events no longer available',
      payload: `${count} earlier events are no longer available`,
    });
    listener.send(notice);
  }

  private answer(result: unknown): string {
    if (this.schema === 'chat') return answerText(result);
    return resultText(result);
  }

  private finish(listener: Shown): void {
    listener.send(this.messages.response('', 'complete'));
    listener.send(this.messages.trace(this.execution.traceId, this.usage));
  }

  /** Adds a step's tokens to the run's, when it is a model call's end that reported them. */
  countUsage(step: IntermediateStep): void {
    const tokens = step.payload.usage_info?.token_usage;
    if (step.payload.event_type !== 'LLM_END' || !tokens) return;
    const sum = this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    this.usage = {
      prompt_tokens: sum.prompt_tokens + tokens.prompt_tokens,
      completion_tokens: sum.completion_tokens + tokens.completion_tokens,
      total_tokens: sum.total_tokens + tokens.total_tokens,
    };
  }
}
