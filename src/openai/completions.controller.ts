import { Body, Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import {
  ChatCompletionDto,
  OpenAiErrorDto,
  PausedExecutionDto,
  TRACE_HEADER_DOC,
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
import { OpenAiExceptionFilter } from '../http-responders/openai-exception.filter';

/**
 * The OpenAI-compatible `/v1/chat/completions`: `stream` picks the mode; errors in OpenAI's shape. It is
 * interactive (202, typed events) only with `enable_interactive_extensions` (off by default, as in NAT).
 */
@ApiTags('OpenAI')
@UseFilters(OpenAiExceptionFilter)
@Traced()
@ApiExtraModels(ChatCompletionDto)
@Controller()
export class CompletionsController {
  constructor(
    private readonly route: ChatRoute,
    private readonly chat: ChatService,
    private readonly responder: ExecutionResponder,
  ) {}

  @Post()
  @Streams({ whenBodyAsks: true })
  @HttpCode(200)
  @ApiOperation({ summary: 'OpenAI Chat Completions (stream: true streams chat.completion.chunk frames)' })
  @ApiBody({ type: ChatRequestDto })
  @ApiOkResponse({
    description:
      'A chat.completion, or with `stream: true` a text/event-stream of chunks ending in `data: [DONE]`',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChatCompletionDto) } },
      'text/event-stream': { schema: { type: 'string' } },
    },
    ...TRACE_HEADER_DOC,
  })
  @ApiAcceptedResponse({
    type: PausedExecutionDto,
    description: 'With enable_interactive_extensions: paused for a person or an OAuth authorization',
    ...TRACE_HEADER_DOC,
  })
  @ApiBadRequestResponse({ type: OpenAiErrorDto, description: 'Invalid request' })
  @ApiUnprocessableEntityResponse({ type: OpenAiErrorDto, description: 'The workflow failed' })
  @ApiErrorResponses(
    {
      413: 'Body larger than `max_body_bytes` (`max_stream_body_bytes` with `stream: true`)',
      429: 'Too many executions waiting for people, or too many streams open from your address (Retry-After)',
    },
    OpenAiErrorDto,
  )
  @ApiCommonErrors(OpenAiErrorDto)
  async create(
    @Body(new ValidateBodyPipe(ChatRequestDto)) request: ChatRequestDto,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const options: ChatFaceOptions = {
      interactive: this.route.interactive,
      interactiveRoute: this.route.interactiveRoute(request.stream === true ? '/stream' : ''),
      errors: 'openai',
      done: true,
    };
    if (request.stream === true) {
      await this.responder.stream(
        this.chat.input(request),
        identity,
        req,
        res,
        this.chat.face(request, options),
      );
      return;
    }
    const { status, body } = await this.responder.reply(
      this.chat.input(request),
      identity,
      req,
      this.chat.face(request, options),
    );
    res.status(status).json(body);
  }
}
