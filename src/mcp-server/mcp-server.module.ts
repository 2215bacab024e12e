import { Module, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { AppConfig } from '../config/config.loader';
import { ExecutionsModule } from '../executions/executions.module';
import { McpServerController } from './mcp-server.controller';
import { McpSessions } from './mcp-sessions';
import { McpTools } from './mcp-tools';
import { McpUnauthorizedFilter, ProtectedResourceController } from './protected-resource';

/** The endpoint itself, mounted at `mcp_path`. */
@Module({})
class McpEndpointModule {}

/**
 * The MCP server face (`general.front_end.mcp_path`, left out when it is null): every tool of
 * `nat mcp serve`, a person's prompt as an elicitation. Not the MCP client tools (src/mcp/).
 */
@Module({})
export class McpServerModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = config.settings.general.front_end.mcp_path;
    if (path === null) return { module: McpServerModule };
    return {
      module: McpServerModule,
      imports: [
        {
          module: McpEndpointModule,
          imports: [ExecutionsModule],
          controllers: [McpServerController],
          providers: [McpTools, McpSessions, McpUnauthorizedFilter],
        },
        RouterModule.register([{ path, module: McpEndpointModule }]),
      ],
      controllers: [ProtectedResourceController],
    };
  }
}
