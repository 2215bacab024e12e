import { Controller, Delete, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { HttpSettings } from '../core/http/http-pipeline';
import { requestMetadata } from '../core/http/request-metadata';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { IdentityResolver } from '../core/identity/identity.resolver';
import { Streams } from '../core/http/streams.decorator';
import { Traced, traceOf } from '../core/tracing/request-trace.guard';
import { McpSessions } from './mcp-sessions';
import { McpUnauthorizedFilter } from './protected-resource';
import { UnreadableBody } from '../core/validation/body.pipes';

/**
 * The MCP server face: Streamable HTTP at `general.front_end.mcp_path`, spoken by the SDK's transport.
 * Here only what HTTP decides before it: the page's Origin (as for the WebSocket), the caller's identity.
 */
@ApiExcludeController()
@UseFilters(McpUnauthorizedFilter)
@Traced()
@Controller()
export class McpServerController {
  constructor(
    private readonly sessions: McpSessions,
    private readonly http: HttpSettings,
    private readonly identities: IdentityResolver,
  ) {}

  // A call's answer is an SSE stream when it sends notifications or asks the person (elicitation).
  @Post()
  @Streams()
  post(@CurrentIdentity() identity: Identity, @Req() req: Request, @Res() res: Response) {
    return this.handle(identity, req, res);
  }

  // The session's standalone SSE stream (and a stream resumed with Last-Event-ID).
  @Get()
  @Streams()
  stream(@CurrentIdentity() identity: Identity, @Req() req: Request, @Res() res: Response) {
    return this.handle(identity, req, res);
  }

  @Delete()
  close(@CurrentIdentity() identity: Identity, @Req() req: Request, @Res() res: Response) {
    return this.handle(identity, req, res);
  }

  private async handle(identity: Identity, req: Request, res: Response): Promise<void> {
    const origin = req.headers.origin;
    // MCP transport rule: servers validate Origin (DNS rebinding); the pages a WebSocket accepts.
    if (!this.http.socketOrigins.allows(origin, req.headers.host, this.identities.mode)) {
      res.status(403).json({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Origin not allowed (see general.front_end.cors.allow_origins): ${origin}`,
        },
        id: null,
      });
      return;
    }
    if (identity.userId === null && this.identities.mode === 'verified') {
      throw new AppError(
        ErrorCode.Unauthorized,
        `This MCP server needs a credential (accepted: ${[...this.identities.sources].join(', ')})`,
      );
    }
    // The body parser leaves what it could not read in the body's place (core/validation/body.pipes.ts).
    if (req.body instanceof UnreadableBody) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
      return;
    }
    await this.sessions.handle(req, res, { identity, request: requestMetadata(req), trace: traceOf(req) });
  }
}
