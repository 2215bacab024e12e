import { Controller, Get, HttpCode, Optional, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { AgentCapabilities } from '@ag-ui/core';
import type { Request, Response } from 'express';
import { UnreadableBody, unreadableError } from '../core/validation/body.pipes';
import { Streams } from '../core/http/streams.decorator';
import { requestMetadata } from '../core/http/request-metadata';
import { SseWriter } from '../core/http/sse-writer';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { RequestLog } from '../core/logging/request-log';
import { Traced, traceOf } from '../core/tracing/request-trace.guard';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import { AguiRunService } from './agui-run.service';
import { capabilitiesOf } from './capabilities';
import { RUN_AGENT_INPUT_DOC } from './openapi';
import { AguiErrorDto } from './dto/agui-error.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { parseRunInput } from './run-input';

/** The AG-UI face: `POST` runs an agent (SSE), `GET capabilities` says what it supports. */
@ApiTags('AG-UI')
@ApiCommonErrors()
@Controller()
export class AguiController {
  private readonly capabilities: AgentCapabilities;
  private readonly keepAliveMs: number;

  constructor(
    private readonly runs: AguiRunService,
    config: ServerConfig,
    @Optional() private readonly log?: RequestLog,
  ) {
    this.capabilities = capabilitiesOf(config.app);
    this.keepAliveMs = config.frontEnd.sse_keepalive_seconds * 1000;
  }

  @Post()
  @Streams()
  @Traced()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run the workflow as an AG-UI agent (RunAgentInput in, AG-UI events out as SSE)',
    description:
      'Streams `data: <event>` frames. A run that waits for a person ends with ' +
      '`RUN_FINISHED {outcome: {type: "interrupt"}}`; the next run on the thread carries `resume`.',
  })
  @ApiBody({ schema: RUN_AGENT_INPUT_DOC })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'AG-UI events, one JSON object per `data:` frame',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrorResponses(
    { 400: 'Not a valid RunAgentInput (`issues` says why)', 415: 'The body is not JSON' },
    AguiErrorDto,
  )
  @ApiErrorResponses({
    404: 'The thread belongs to another identity',
    413: 'Body larger than `max_stream_body_bytes`',
    429: 'Too many threads held, or too many streams open from your address (Retry-After)',
  })
  async run(@CurrentIdentity() identity: Identity, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (!req.is(['application/json', 'application/*+json'])) {
      res
        .status(415)
        .json({ error: 'unsupported_media_type', message: 'Send the RunAgentInput as application/json' });
      return;
    }
    const body: unknown = req.body;
    // A body too large is a 413 as on every face; one that is not JSON is this face's 400.
    if (body instanceof UnreadableBody && body.tooLarge) throw unreadableError(body);
    const parsed =
      body instanceof UnreadableBody
        ? { issues: [{ path: '', message: `JSON decode error: ${body.message}` }] }
        : parseRunInput(body);
    if ('issues' in parsed) {
      res
        .status(400)
        .json({ error: 'invalid_run_agent_input', message: 'Invalid RunAgentInput', issues: parsed.issues });
      return;
    }
    await this.runs.run(identity, parsed.input, {
      request: requestMetadata(req),
      trace: traceOf(req),
      open: (executionId) => {
        if (executionId !== undefined) {
          res.setHeader('X-Execution-Id', executionId);
          this.log?.assign(req, { executionId });
        }
        const writer = new SseWriter(res, this.keepAliveMs);
        writer.open();
        return writer;
      },
    });
  }

  @Get('capabilities')
  @ApiOperation({ summary: 'What this AG-UI agent supports (AG-UI AgentCapabilities)' })
  @ApiOkResponse({ description: 'AgentCapabilities', schema: { type: 'object' } })
  capabilitiesDocument(): AgentCapabilities {
    return this.capabilities;
  }
}
