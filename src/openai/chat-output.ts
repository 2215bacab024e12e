import { messageText } from '../runtime/chat-input';
import { type ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import type { BuiltFunction } from '../runtime/function-type';
import {
  chatCompletion,
  isChatCompletion,
  newCompletionId,
  resultText,
  unixSeconds,
  usageFor,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatUsage,
} from '../runtime/chat-completion';

/**
 * The model name chat responses report: the one the client asked for (echoed, as OpenAI-compatible
 * servers do), else the workflow's configured model, else the workflow's type. Not NAT's
 * `unknown-model` placeholder, which reads like a fault.
 */
export function modelOf(request: ChatRequestDto, workflow: Pick<BuiltFunction, 'type' | 'model'>): string {
  return request.model ?? workflow.model ?? workflow.type;
}

export function promptText(request: ChatRequestDto): string {
  return request.messages.map((m) => messageText(m.content)).join('\n');
}

/**
 * Any workflow result as a chat completion (a workflow that answers one already is passed through), from
 * the model name and the prompt's text (what a record keeps of the request).
 */
export function completionFor(result: unknown, model: string, prompt: string): ChatCompletion {
  if (isChatCompletion(result)) return result;
  const text = resultText(result);
  return chatCompletion(text, { model, usage: usageFor(prompt, text) });
}

/** Whether the client asked for a last chunk with the completion's token usage. */
export function wantsUsage(request: ChatRequestDto): boolean {
  return request.stream_options?.include_usage === true;
}

export interface CompletionIdentity {
  id: string;
  created: number;
}

export function newCompletionIdentity(): CompletionIdentity {
  return { id: newCompletionId(), created: unixSeconds() };
}

/** Builds the chunks of one streamed completion: one id, created and model for the whole stream. */
export class ChunkFactory {
  private first = true;

  constructor(
    private readonly model: string,
    /** `stream_options.include_usage`: every chunk has `usage: null`, and `usage()` makes the last one. */
    private readonly withUsage = false,
    /** A re-attached stream continues the completion it started: same id and created. */
    private readonly completion: CompletionIdentity = newCompletionIdentity(),
  ) {}

  content(text: string): ChatCompletionChunk {
    const delta: ChatCompletionChunk['choices'][0]['delta'] = this.first
      ? { role: 'assistant', content: text }
      : { content: text };
    this.first = false;
    return this.chunk(delta, null);
  }

  stop(): ChatCompletionChunk {
    return this.chunk({}, 'stop');
  }

  /** OpenAI's usage chunk: after the one that stops, no choices. */
  usage(usage: ChatUsage): ChatCompletionChunk {
    return { ...this.base(), choices: [], usage };
  }

  private chunk(
    delta: ChatCompletionChunk['choices'][0]['delta'],
    finish: 'stop' | null,
  ): ChatCompletionChunk {
    return {
      ...this.base(),
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(this.withUsage ? { usage: null } : {}),
    };
  }

  private base() {
    return {
      id: this.completion.id,
      object: 'chat.completion.chunk' as const,
      created: this.completion.created,
      model: this.model,
    };
  }
}
