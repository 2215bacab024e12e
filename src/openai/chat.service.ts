import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ChatRequestDto } from '../core/dto/chat-request.dto';
import type { ChatCompletion } from '../core/dto/chat-response';
import type { Identity } from '../core/identity/identity';
import { requestMetadata } from '../core/http/request-metadata';
import { SseWriter } from '../core/http/sse-writer';
import { ServerConfig } from '../config/server-config';
import { ExecutionService, type Execution } from '../executions/execution.service';
import { followExecution } from '../executions/follow-execution';
import { StepAdaptor } from '../runtime/step-adaptor';
import type { StreamErrorStyle } from '../workflows/generate-sse.renderer';
import { modelOf, toChatCompletion } from './chat-output';
import { chatStreamRenderer } from './chat-sse.renderer';

/** Runs the configured workflow for a chat request, whichever chat route it came through. */
@Injectable()
export class ChatService {
  constructor(
    private readonly executions: ExecutionService,
    private readonly config: ServerConfig,
  ) {}

  start(request: ChatRequestDto, identity: Identity, req: Request, interactive: boolean): Promise<Execution> {
    const workflow = this.config.workflow;
    return this.executions.start(workflow.fromChat(request), identity, {
      request: requestMetadata(req),
      interactive,
    });
  }

  completion(result: unknown, request: ChatRequestDto): ChatCompletion {
    return toChatCompletion(result, request);
  }

  async stream(
    request: ChatRequestDto,
    identity: Identity,
    req: Request,
    res: Response,
    options: { versioned: boolean; errors: StreamErrorStyle | 'openai'; done: boolean },
  ): Promise<void> {
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    const writer = new SseWriter(res, this.config.frontEnd.sse_keepalive_seconds * 1000);
    writer.open();
    const execution = await this.start(request, identity, req, options.versioned);
    writer.onDisconnect(() => execution.cancel('client disconnected'));
    await followExecution(
      execution,
      chatStreamRenderer(writer, {
        model: modelOf(request),
        adaptor: new StepAdaptor(mode, custom_event_types),
        errors: options.errors,
        done: options.done,
      }),
    );
  }
}
