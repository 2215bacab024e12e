import { Controller, Delete, Get, Headers, HttpCode, Param, Query, Res } from '@nestjs/common';
import {
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ExecutionStatusDto, DetailBodyDto, SSE_RESPONSE } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { Streams } from '../core/http/streams.decorator';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { ServerConfig } from '../config/server-config';
import type { SseWriter } from '../core/http/sse-writer';
import { ExecutionService } from '../executions/engine/execution.service';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import { sseRendererOf } from '../http-responders/sse-face';
import { statusBody } from './execution-status';
import { streamExecution } from '../http-responders/execution-stream';
import { ExecutionUrls } from '../http-responders/execution-urls';

@ApiTags('Executions')
@ApiParam({ name: 'id', description: 'The execution id from a 202 body or an X-Execution-Id header' })
@ApiNotFoundResponse({ type: DetailBodyDto, description: 'Unknown (or evicted) execution' })
@ApiCommonErrors()
@Controller('executions')
export class ExecutionsController {
  private readonly urls: ExecutionUrls;

  constructor(
    private readonly executions: ExecutionService,
    private readonly renderers: FaceRenderers,
    private readonly config: ServerConfig,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Poll an execution: running, interaction_required, oauth_required, completed or failed',
  })
  @ApiOkResponse({ type: ExecutionStatusDto })
  async status(@CurrentIdentity() identity: Identity, @Param('id') id: string) {
    const record = await this.executions.record(identity, id);
    if (record.status !== 'completed') return statusBody(record, this.urls);
    const renderer = record.face && sseRendererOf(this.renderers, record.face.name);
    const result = renderer ? (raw: unknown) => renderer.result(raw, record.face?.options) : undefined;
    return statusBody(record, this.urls, result);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Cancel a running or waiting execution (its status becomes failed)' })
  @ApiNoContentResponse({ description: 'Cancelled' })
  @ApiErrorResponses({ 409: 'The execution has already ended (completed or failed)' })
  async cancel(@CurrentIdentity() identity: Identity, @Param('id') id: string): Promise<void> {
    await this.executions.cancel(identity, id);
  }

  @Get(':id/stream')
  @Streams({ execution: 'id' })
  @ApiOperation({
    summary: 'Re-attach to an interactive stream: the frames after Last-Event-ID, then the live ones',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last frame received' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse(SSE_RESPONSE)
  @ApiErrorResponses({ 429: 'Too many streams open from your address, or re-attached to this execution' })
  async stream(
    @CurrentIdentity() identity: Identity,
    @Param('id') id: string,
    @Res() res: Response,
    @Headers('last-event-id') lastEventId?: string,
    @Query('last_event_id') lastEventIdQuery?: string,
  ): Promise<void> {
    const record = await this.executions.record(identity, id);
    const { face } = record;
    const execution = await this.executions.attach(record);
    const renderer = face && sseRendererOf(this.renderers, face.name);
    if (!execution || !renderer) {
      throw new AppError(ErrorCode.NotFound, `Execution ${id} has no stream to re-attach to`);
    }
    const after = Number.parseInt(lastEventId ?? lastEventIdQuery ?? '0', 10);
    const render = (writer: SseWriter) => renderer.stream(writer, face?.options, id);
    await streamExecution(res, execution, render, {
      keepAliveMs: this.config.frontEnd.sse_keepalive_seconds * 1000,
      interactive: true,
      cancelOnDisconnect: this.config.frontEnd.on_disconnect === 'cancel',
      afterSeq: Number.isFinite(after) && after > 0 ? after : 0,
    });
  }
}
