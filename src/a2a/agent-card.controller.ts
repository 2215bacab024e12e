import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentCard, AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { Request } from 'express';
import { A2aCard } from './a2a-card';

/** `GET /.well-known/agent-card.json`: what A2A clients read first. */
@ApiTags('A2A')
@Controller(AGENT_CARD_PATH)
export class AgentCardController {
  constructor(private readonly card: A2aCard) {}

  @Get()
  @ApiOperation({
    summary: 'The A2A agent card: the workflow as an agent, its JSON-RPC endpoint and security',
  })
  @ApiOkResponse({ description: 'AgentCard (A2A v1.0)', schema: { type: 'object' } })
  get(@Req() req: Request): unknown {
    return AgentCard.toJSON(this.card.forOrigin(`${req.protocol}://${req.get('host') ?? ''}`));
  }
}
