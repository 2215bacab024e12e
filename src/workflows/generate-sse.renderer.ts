import type { ExecutionEvent } from '../runtime/execution-event';
import type { SseWriter } from '../core/http/sse-writer';
import { writeInteractiveEvent } from '../http-responders/execution-stream';
import type { ExecutionUrls } from '../http-responders/execution-urls';
import { writeStreamError, type StreamErrorStyle } from '../http-responders/stream-error';
import { rawStep, type StepAdaptor } from '../runtime/step-adaptor';
import { valueItem } from './generate-output';

export interface GenerateStreamOptions {
  /** Adapted steps (`/stream`) or raw ones (`/full`). */
  steps: { adaptor: StepAdaptor } | { raw: true; filter: Set<string> | 'all' | 'none' };
  errors: StreamErrorStyle;
  /** On interactive routes: prompts and OAuth become `event: interaction_required` / `oauth_required`. */
  interactive?: { executionId: string; urls: ExecutionUrls };
}

/** `?filter_steps=` as NAT reads it: a comma list of event types, `none` for no steps, empty for all. */
export function parseStepFilter(query: unknown): Set<string> | 'all' | 'none' {
  if (typeof query !== 'string' || query === '') return 'all';
  if (query.toLowerCase() === 'none') return 'none';
  return new Set(
    query
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** Renders one execution as NAT's generate stream: `intermediate_data:` steps and `data: {"value": …}` output. */
export function generateStreamRenderer(writer: SseWriter, options: GenerateStreamOptions) {
  const { interactive } = options;
  return (event: ExecutionEvent): void => {
    if (interactive && writeInteractiveEvent(writer, event, interactive.executionId, interactive.urls))
      return;
    switch (event.kind) {
      case 'step': {
        const { steps } = options;
        if ('adaptor' in steps) {
          const adapted = steps.adaptor.adapt(event.step);
          if (adapted) writer.field('intermediate_data', adapted);
        } else if (
          steps.filter === 'all' ||
          (steps.filter !== 'none' && steps.filter.has(event.step.payload.event_type))
        ) {
          writer.field('intermediate_data', rawStep(event.step));
        }
        return;
      }
      case 'output':
        writer.data(valueItem(event.value));
        return;
      case 'completed':
        if (!event.streamed) writer.data(valueItem(event.result));
        writer.end();
        return;
      case 'failed':
        writeStreamError(writer, options.errors, event.error.message, event.error.type);
        writer.end();
        return;
      case 'cancelled':
        writeStreamError(
          writer,
          options.errors,
          `Execution cancelled: ${event.reason}`,
          'ExecutionCancelled',
        );
        writer.end();
        return;
      default:
        return;
    }
  };
}
