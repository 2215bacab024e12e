import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import {
  ChatCompletionDto,
  ErrorBodyDto,
  PausedExecutionDto,
  SSE_RESPONSE,
  TRACE_HEADER_DOC,
  ValidationErrorBodyDto,
} from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { Streams } from '../core/http/streams.decorator';
import { Traced } from '../core/tracing/request-trace.guard';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { ValidateBodyPipe } from '../core/validation/body.pipes';
import { ExecutionResponder } from '../http-responders/execution-responder';
import { ChatRoute } from './chat-route';
import { ChatService, type ChatFaceOptions } from './chat.service';

const bodyPipe = new ValidateBodyPipe(ChatRequestDto);

/** NAT's chat routes under one base path: the workflow behind a chat request. */
@ApiExtraModels(ErrorBodyDto, ValidationErrorBodyDto)
@ApiUnprocessableEntityResponse({
  description: 'Invalid body (`detail` list) or the workflow failed (`code: workflow_error`)',
  schema: {
    oneOf: [{ $ref: getSchemaPath(ValidationErrorBodyDto) }, { $ref: getSchemaPath(ErrorBodyDto) }],
  },
})
@ApiErrorResponses({
  413: 'Body larger than `max_body_bytes` (`max_stream_body_bytes` for the stream)',
  429: 'Too many executions waiting for people, or too many streams open from your address (Retry-After)',
})
@ApiCommonErrors()
@Traced()
export abstract class ChatRoutes {
  constructor(
    private readonly route: ChatRoute,
    private readonly chat: ChatService,
    private readonly responder: ExecutionResponder,
  ) {}

  @Post()
  @ApiBody({ type: ChatRequestDto })
  @HttpCode(200)
  @ApiOperation({ summary: 'Chat with the workflow (one chat.completion)' })
  @ApiOkResponse({ type: ChatCompletionDto, ...TRACE_HEADER_DOC })
  @ApiAcceptedResponse({
    type: PausedExecutionDto,
    description: 'Paused for a person or an OAuth authorization',
    ...TRACE_HEADER_DOC,
  })
  async complete(
    @Body(bodyPipe) request: ChatRequestDto,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { status, body } = await this.responder.reply(
      this.chat.input(request),
      identity,
      req,
      this.chat.face(request, this.options('')),
    );
    res.status(status);
    return body;
  }

  @Post('stream')
  @Streams()
  @ApiBody({ type: ChatRequestDto })
  @ApiOperation({ summary: 'Chat with the workflow, streaming chat.completion.chunk frames' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ ...SSE_RESPONSE, ...TRACE_HEADER_DOC })
  async stream(
    @Body(bodyPipe) request: ChatRequestDto,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.responder.stream(
      this.chat.input(request),
      identity,
      req,
      res,
      this.chat.face(request, this.options('/stream')),
    );
  }

  private options(suffix: string): ChatFaceOptions {
    const versioned = this.route.interactive;
    return {
      interactive: versioned,
      interactiveRoute: this.route.interactiveRoute(suffix),
      errors: versioned ? 'event' : 'bare',
      done: !versioned,
    };
  }
}

/** The chat routes at `openai_api_path` (`/v1/chat`): interactive. */
@ApiTags('Chat')
@Controller()
export class ChatController extends ChatRoutes {}

/** The chat routes at `legacy_openai_api_path` (`/chat`): not interactive, streams end with [DONE]. */
@ApiTags('Chat (legacy)')
@Controller()
export class LegacyChatController extends ChatRoutes {}
