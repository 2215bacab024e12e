import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { McpClientToolListDto } from './dto/mcp-tool-list.dto';
import { McpClients } from './mcp-clients.service';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';

/** NeMo Agent Toolkit's MCP tool list routes; its UI calls the first one from its MCP button. */
@ApiTags('MCP')
@ApiCommonErrors()
@Controller('mcp/client/tool/list')
export class McpController {
  constructor(private readonly clients: McpClients) {}

  @Get()
  @ApiOperation({ summary: "The workflow's MCP clients and their tools" })
  @ApiOkResponse({ type: McpClientToolListDto })
  async list(): Promise<McpClientToolListDto> {
    return { mcp_clients: await this.clients.list(null) };
  }

  @Get('per_user')
  @ApiOperation({ summary: "The caller's MCP clients and their tools (per-user workflows)" })
  @ApiOkResponse({ type: McpClientToolListDto })
  async listForUser(@CurrentIdentity() identity: Identity): Promise<McpClientToolListDto> {
    return { mcp_clients: await this.clients.list(identity) };
  }
}
