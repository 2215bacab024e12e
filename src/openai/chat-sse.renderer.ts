import type { ChatUsage } from '../runtime/chat-completion';
import type { ExecutionEvent } from '../runtime/execution-event';
import type { SseWriter } from '../core/http/sse-writer';
import { writeInteractiveEvent } from '../http-responders/execution-stream';
import type { ExecutionUrls } from '../http-responders/execution-urls';
import { writeStreamError, type StreamErrorStyle } from '../http-responders/stream-error';
import type { StepAdaptor } from '../runtime/step-adaptor';
import { chunkText } from '../runtime/output-text';
import type { ChunkFactory } from './chat-output';
import { openAiError } from '../http-responders/openai-error';

export interface ChatStreamOptions {
  /** One per completion, so a re-attached stream continues the same completion. */
  chunks: ChunkFactory;
  adaptor: StepAdaptor;
  /**
   * `bare` / `event`: NAT's chat streams (legacy / versioned); `openai`: `/v1/chat/completions`, whose
   * failures are `data: {"error": …}` frames that OpenAI SDKs raise.
   */
  errors: StreamErrorStyle | 'openai';
  /** End with `data: [DONE]` (legacy chat stream and the OpenAI route; not the interactive twins). */
  done: boolean;
  /** On interactive routes: prompts and OAuth become `event: interaction_required` / `oauth_required`. */
  interactive?: { executionId: string; urls: ExecutionUrls };
  /** `stream_options.include_usage`: the result's token usage, sent in a last chunk. */
  usage?: (result: unknown) => ChatUsage;
}

/** Renders one execution as a stream of `chat.completion.chunk` frames with `intermediate_data:` steps. */
export function chatStreamRenderer(writer: SseWriter, options: ChatStreamOptions) {
  const { chunks, interactive } = options;
  const finish = (result?: { value: unknown }) => {
    writer.data(chunks.stop());
    if (result && options.usage) writer.data(chunks.usage(options.usage(result.value)));
    if (options.done) writer.data('[DONE]');
    writer.end();
  };
  const fail = (message: string, type: string) => {
    if (options.errors === 'openai') {
      writer.data(openAiError(message, 'workflow_error', null, 'workflow_error'));
      finish();
      return;
    }
    writeStreamError(writer, options.errors, message, type);
    writer.end();
  };
  return (event: ExecutionEvent): void => {
    if (interactive && writeInteractiveEvent(writer, event, interactive.executionId, interactive.urls))
      return;
    switch (event.kind) {
      case 'step': {
        const adapted = options.adaptor.adapt(event.step);
        if (adapted) writer.field('intermediate_data', adapted);
        return;
      }
      case 'output':
        writer.data(chunks.content(chunkText(event.value)));
        return;
      case 'completed': {
        if (!event.streamed) writer.data(chunks.content(chunkText(event.result)));
        finish({ value: event.result });
        return;
      }
      case 'failed':
        fail(event.error.message, event.error.type);
        return;
      case 'cancelled':
        fail(`Execution cancelled (${event.reason})`, 'ExecutionCancelled');
        return;
      default:
        return;
    }
  };
}
