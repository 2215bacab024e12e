import { Injectable } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import type { McpClientDto } from './dto/mcp-tool-list.dto';

/**
 * The MCP clients a workflow uses, for the NAT UI's MCP panel. No component type here is an MCP client
 * yet, so the list is empty; one that is will list itself here (per user for per-user workflows).
 */
@Injectable()
export class McpClients {
  list(_identity: Identity | null): Promise<McpClientDto[]> {
    return Promise.resolve([]);
  }
}
