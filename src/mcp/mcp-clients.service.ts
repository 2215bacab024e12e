import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { connectGroups } from '../config/function-groups';
import { ServerConfig } from '../config/server-config';
import type { Identity } from '../core/identity/identity';
import { isMcpClientGroup } from '../runtime/mcp/mcp-client-group';
import type { McpClientDto } from './dto/mcp-tool-list.dto';

/**
 * The workflow's MCP clients (`function_groups` of `_type: mcp_client`): connected before the server
 * listens (an unreachable server stops start-up; a `per_user_mcp_client` connects at its first use
 * instead), listed for the NAT UI's MCP panel, closed at shutdown.
 */
@Injectable()
export class McpClients implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpClients');

  constructor(private readonly config: ServerConfig) {}

  async onModuleInit(): Promise<void> {
    await connectGroups(this.config.app);
    for (const group of this.config.app.groups.values())
      if (isMcpClientGroup(group) && group.waitingForUser) this.logger.warn(group.waitingForUser);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.config.app.groups.values()].map((g) => g.close()));
  }

  /** Each client's tools, with whether its server lists them right now (one live `tools/list` each). */
  list(_identity: Identity | null): Promise<McpClientDto[]> {
    const groups = [...this.config.app.groups.values()].filter(isMcpClientGroup);
    return Promise.all(groups.map((g) => g.describe()));
  }
}
