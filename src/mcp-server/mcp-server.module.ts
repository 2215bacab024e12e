import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { ExecutionsModule } from '../executions/executions.module';
import { McpServerController } from './mcp-server.controller';
import { McpSessions } from './mcp-sessions';
import { McpTools } from './mcp-tools';
import { SharedSessions } from './shared-sessions';
import { McpUnauthorizedFilter, ProtectedResourceController } from './protected-resource';
import { mountAt, mounted } from '../core/http/route-mount';

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
      // The endpoint itself at `mcp_path`; the protected-resource metadata at its well-known path.
      imports: mounted([
        mountAt(path, 'McpEndpoint', {
          imports: [ExecutionsModule],
          controllers: [McpServerController],
          providers: [McpTools, McpSessions, SharedSessions, McpUnauthorizedFilter],
        }),
      ]),
      controllers: [ProtectedResourceController],
    };
  }
}
