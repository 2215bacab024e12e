import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ChatRequestDto } from '../core/dto/chat-request.dto';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import { ExecutionResponder, type Face } from '../executions/execution-responder';
import { StepAdaptor } from '../runtime/step-adaptor';
import type { StreamErrorStyle } from '../workflows/generate-sse.renderer';
import { ChunkFactory, modelOf, toChatCompletion, wantsUsage } from './chat-output';
import { chatStreamRenderer } from './chat-sse.renderer';

export interface ChatFaceOptions {
  interactive: boolean;
  /** For a non-interactive route: the interactive route to name when the workflow asks. */
  interactiveRoute?: string;
  errors: StreamErrorStyle | 'openai';
  /** End streams with `data: [DONE]`. */
  done: boolean;
}

/** Runs the configured workflow for a chat request, whichever chat route it came through. */
@Injectable()
export class ChatService {
  constructor(
    private readonly responder: ExecutionResponder,
    private readonly config: ServerConfig,
  ) {}

  reply(request: ChatRequestDto, identity: Identity, req: Request, options: ChatFaceOptions) {
    return this.responder.reply(
      this.config.workflow.fromChat(request),
      identity,
      req,
      this.face(request, options),
    );
  }

  stream(request: ChatRequestDto, identity: Identity, req: Request, res: Response, options: ChatFaceOptions) {
    const input = this.config.workflow.fromChat(request);
    return this.responder.stream(input, identity, req, res, this.face(request, options));
  }

  private face(request: ChatRequestDto, options: ChatFaceOptions): Face {
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    const chunks = new ChunkFactory(modelOf(request), wantsUsage(request));
    return {
      interactive: options.interactive,
      interactiveRoute: options.interactiveRoute,
      renderResult: (result) => toChatCompletion(result, request),
      renderer: (writer, interactive) =>
        chatStreamRenderer(writer, {
          chunks,
          adaptor: new StepAdaptor(mode, custom_event_types),
          errors: options.errors,
          done: options.done,
          interactive,
          usage: wantsUsage(request) ? (result) => toChatCompletion(result, request).usage : undefined,
        }),
    };
  }
}
