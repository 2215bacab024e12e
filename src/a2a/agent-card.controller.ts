import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentCard, AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { publicOrigin } from '../core/http/public-origin';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';
import { A2aCard } from './a2a-card';

/** `GET /.well-known/agent-card.json`: what A2A clients read first. */
@ApiTags('A2A')
@ApiCommonErrors()
@Controller(AGENT_CARD_PATH)
export class AgentCardController {
  constructor(
    private readonly card: A2aCard,
    private readonly config: ServerConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The A2A agent card: the workflow as an agent, its JSON-RPC endpoint and security',
  })
  @ApiOkResponse({ description: 'AgentCard (A2A v1.0)', schema: { type: 'object' } })
  get(@Req() req: Request, @Res({ passthrough: true }) res: Response): unknown {
    const origin = publicOrigin(this.config.frontEnd.public_base_url, req, res);
    return AgentCard.toJSON(this.card.forOrigin(origin));
  }
}
