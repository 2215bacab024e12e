import { Injectable } from '@nestjs/common';
import type { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import { ServerConfig } from '../config/server-config';
import { checkAttachments } from '../runtime/attachments';
import type { ExecutionRoute } from '../http-responders/execution-responder';
import { CHAT_FACE, type ChatFaceRenderOptions } from './chat-face';
import { modelOf, newCompletionIdentity, promptText, wantsUsage } from './chat-output';

export interface ChatFaceOptions {
  interactive: boolean;
  /** For a non-interactive route: the interactive route to name when the workflow asks. */
  interactiveRoute?: string;
  errors: ChatFaceRenderOptions['errors'];
  /** End streams with `data: [DONE]`. */
  done: boolean;
}

/** Turns a chat request, whichever chat route it came through, into the workflow's input and a face. */
@Injectable()
export class ChatService {
  constructor(private readonly config: ServerConfig) {}

  input(request: ChatRequestDto): unknown {
    checkAttachments(request.messages, this.config.workflow, ['body', 'messages']);
    return this.config.workflow.fromChat(request);
  }

  face(request: ChatRequestDto, options: ChatFaceOptions): ExecutionRoute {
    const render: ChatFaceRenderOptions = {
      model: modelOf(request, this.config.workflow),
      includeUsage: wantsUsage(request),
      prompt: promptText(request),
      completion: newCompletionIdentity(),
      errors: options.errors,
      done: options.done,
      interactive: options.interactive,
    };
    return {
      ref: { name: CHAT_FACE, options: render },
      interactive: options.interactive,
      interactiveRoute: options.interactiveRoute,
    };
  }
}
