import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import { ExecutionUrls } from '../http-responders/execution-urls';
import type { SseFaceRenderer } from '../http-responders/sse-face';
import type { StreamErrorStyle } from '../http-responders/stream-error';
import { StepAdaptor } from '../runtime/step-adaptor';
import { ChunkFactory, completionFor, type CompletionIdentity } from './chat-output';
import { chatStreamRenderer } from './chat-sse.renderer';

export const CHAT_FACE = 'chat';

/** What the chat face keeps of a request to render its execution again (plain data). */
export interface ChatFaceRenderOptions {
  model: string;
  /** `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The request's messages as text, for the usage estimate. */
  prompt: string;
  completion: CompletionIdentity;
  errors: StreamErrorStyle | 'openai';
  done: boolean;
  interactive: boolean;
}

/** Registers the chat rendering (`/v1/chat`, `/chat`, `/v1/chat/completions`). */
@Injectable()
export class ChatFace implements OnModuleInit {
  constructor(
    private readonly renderers: FaceRenderers,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const urls = new ExecutionUrls(this.config.frontEnd.root_path);
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    // The completion keeps the id and time the request was given, so every poll shows the same one.
    const completion = (raw: unknown, o: ChatFaceRenderOptions) => {
      const rendered = completionFor(raw, o.model, o.prompt);
      return rendered === raw
        ? rendered
        : { ...rendered, id: o.completion.id, created: o.completion.created };
    };
    const renderer: SseFaceRenderer<ChatFaceRenderOptions> = {
      result: completion,
      stream: (writer, o, executionId) =>
        chatStreamRenderer(writer, {
          chunks: new ChunkFactory(o.model, o.includeUsage, o.completion),
          adaptor: new StepAdaptor(mode, custom_event_types),
          errors: o.errors,
          done: o.done,
          interactive: o.interactive ? { executionId, urls } : undefined,
          usage: o.includeUsage ? (raw) => completion(raw, o).usage : undefined,
        }),
    };
    this.renderers.register(CHAT_FACE, renderer);
  }
}
