import { applyDecorators, Body, Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ErrorBodyDto,
  GenerateResponseDto,
  PausedExecutionDto,
  SSE_RESPONSE,
  TRACE_HEADER_DOC,
  ValidationErrorBodyDto,
} from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { Streams } from '../core/http/streams.decorator';
import { Traced } from '../core/tracing/request-trace.guard';
import { ExecutionResponder } from '../http-responders/execution-responder';
import { GenerateInputPipe, GenerateRoute } from './generate-route';
import { parseStepFilter } from './generate-sse.renderer';

/*
 * NAT's generate routes: `<base>` answers once, `<base>/stream` and `<base>/full` stream. The input's
 * schema (the configured workflow's, or an endpoint function's) is documented per mount from config,
 * by GenerateDocs; the rest of their OpenAPI is here.
 */

export const GenerateOperation = () =>
  applyDecorators(
    HttpCode(200),
    ApiOperation({ summary: 'Run the workflow and return its output' }),
    ApiOkResponse({
      description: 'The workflow output; scalars as `{"value": …}`',
      type: GenerateResponseDto,
      ...TRACE_HEADER_DOC,
    }),
    ApiAcceptedResponse({
      type: PausedExecutionDto,
      description: 'Paused for a person or an OAuth authorization',
      ...TRACE_HEADER_DOC,
    }),
  );

export const StreamOperation = () =>
  applyDecorators(
    Streams(),
    ApiOperation({ summary: 'Run the workflow, streaming output and step-adapted intermediate steps' }),
    ApiProduces('text/event-stream'),
    ApiOkResponse({ ...SSE_RESPONSE, ...TRACE_HEADER_DOC }),
  );

export const FullOperation = () =>
  applyDecorators(
    Streams(),
    ApiOperation({ summary: 'Run the workflow, streaming output and raw intermediate steps' }),
    ApiQuery({
      name: 'filter_steps',
      required: false,
      description: 'Comma-separated step types to keep (e.g. LLM_END,TOOL_END), or `none`',
    }),
    ApiProduces('text/event-stream'),
    ApiOkResponse({ ...SSE_RESPONSE, ...TRACE_HEADER_DOC }),
  );

/** What every generate controller does: run the mount's function and answer in NAT's shapes. */
@ApiExtraModels(ErrorBodyDto, ValidationErrorBodyDto, GenerateResponseDto)
@ApiUnprocessableEntityResponse({
  description: 'Invalid body (`detail` list) or the workflow failed (`code: workflow_error`)',
  schema: {
    oneOf: [{ $ref: getSchemaPath(ValidationErrorBodyDto) }, { $ref: getSchemaPath(ErrorBodyDto) }],
  },
})
@ApiErrorResponses({
  413: 'Body larger than `max_body_bytes` (`max_stream_body_bytes` for the streams)',
  429: 'Too many executions waiting for people, or too many streams open from your address (Retry-After)',
})
@ApiCommonErrors()
@Traced()
export abstract class GenerateRoutes {
  constructor(
    private readonly route: GenerateRoute,
    private readonly responder: ExecutionResponder,
  ) {}

  protected async answer(input: object, identity: Identity, req: Request, res: Response): Promise<unknown> {
    const { status, body } = await this.responder.reply(input, identity, req, this.route.face('/'));
    res.status(status);
    return body;
  }

  protected streamAdapted(input: object, identity: Identity, req: Request, res: Response): Promise<void> {
    return this.responder.stream(input, identity, req, res, this.route.face('/stream', 'adapted'));
  }

  protected streamRaw(
    input: object,
    identity: Identity,
    req: Request,
    res: Response,
    filterSteps?: string,
  ): Promise<void> {
    const filter = parseStepFilter(filterSteps);
    const raw = filter instanceof Set ? [...filter] : filter;
    return this.responder.stream(input, identity, req, res, this.route.face('/full', { raw }));
  }
}

/** The generate routes taking their input as a JSON body, by POST. */
export abstract class PostGenerateRoutes extends GenerateRoutes {
  @Post()
  @GenerateOperation()
  generate(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(input, identity, req, res);
  }

  @Post('stream')
  @StreamOperation()
  stream(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.streamAdapted(input, identity, req, res);
  }

  @Post('full')
  @FullOperation()
  full(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
    @Query('filter_steps') filterSteps?: string,
  ): Promise<void> {
    return this.streamRaw(input, identity, req, res, filterSteps);
  }
}

/** The workflow at `general.front_end.workflow.path` (`/v1/workflow`): interactive. */
@ApiTags('Workflow')
@Controller()
export class WorkflowController extends PostGenerateRoutes {}

/** The workflow at its legacy path (`/generate`): not interactive. */
@ApiTags('Workflow (legacy)')
@Controller()
export class LegacyGenerateController extends PostGenerateRoutes {}
