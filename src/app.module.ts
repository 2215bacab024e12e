import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { IdentityGuard } from './core/identity/identity.guard';
import { IdentityResolver } from './core/identity/identity.resolver';
import { ServerConfigModule } from './config/server-config.module';
import { ServerConfig } from './config/server-config';
import { AppExceptionFilter } from './core/http/app-exception.filter';
import type { AppConfig } from './config/config.loader';
import { ExecutionResponder } from './http-executions/execution-responder';
import { HttpInteractiveModule } from './http-interactive/http-interactive.module';
import { ExecutionsModule } from './executions/executions.module';
import { ConversationRuns } from './gateway/conversation-runs';
import { GatewayService } from './gateway/gateway.service';
import { WsAnswers } from './gateway/ws-answers';
import { createWorkflowGateway } from './gateway/workflow.gateway';
import { FeedbackModule } from './feedback/feedback.module';
import { McpModule } from './mcp/mcp.module';
import { MonitoringModule } from './monitoring/monitoring.module';
import { createOAuthCallbackController } from './http-interactive/oauth-callback.controller';
import { ChatFace } from './openai/chat-face';
import { ChatService } from './openai/chat.service';
import { createChatController } from './openai/chat.controller';
import { createCompletionsController } from './openai/completions.controller';
import { resolveRoutes, routeTable } from './routes';
import { createEndpointControllers } from './workflows/endpoint-controllers';
import { GenerateFace } from './workflows/generate-face';
import { createGenerateController } from './workflows/generate.controller';

/** Route paths come from config, so the faces' controllers are built per configured path. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const routes = resolveRoutes(config.settings.general.front_end);
    const workflow = config.workflow;
    const controllers: Type[] = [];
    const interactiveBase = routes.workflow;
    if (routes.workflow) {
      controllers.push(
        createGenerateController({ base: routes.workflow, versioned: true, workflow, interactiveBase }),
      );
    }
    if (routes.legacyWorkflow) {
      controllers.push(
        createGenerateController({
          base: routes.legacyWorkflow,
          versioned: false,
          workflow,
          interactiveBase,
        }),
      );
    }
    controllers.push(...createEndpointControllers(config));
    if (routes.chat) controllers.push(createChatController(routes.chat, true, routes.chat));
    if (routes.legacyChat) controllers.push(createChatController(routes.legacyChat, false, routes.chat));
    if (routes.completions) {
      const interactive = config.settings.general.front_end.enable_interactive_extensions;
      controllers.push(createCompletionsController(routes.completions, interactive, routes.chat));
    }
    controllers.push(createOAuthCallbackController(routes.oauth2Callback));
    const gateway = routes.websocket
      ? [GatewayService, WsAnswers, ConversationRuns, createWorkflowGateway(routes.websocket)]
      : [];
    return {
      module: AppModule,
      imports: [
        ServerConfigModule.forRoot(config),
        ExecutionsModule,
        HttpInteractiveModule,
        FeedbackModule,
        McpModule,
        MonitoringModule.forRoot({ perUserMonitoring: config.settings.general.enable_per_user_monitoring }),
      ],
      controllers,
      providers: [
        ChatService,
        ChatFace,
        GenerateFace,
        ExecutionResponder,
        IdentityResolver,
        { provide: APP_GUARD, useClass: IdentityGuard },
        {
          provide: APP_FILTER,
          inject: [ServerConfig],
          useFactory: (server: ServerConfig) =>
            new AppExceptionFilter(routeTable(resolveRoutes(server.frontEnd))),
        },
        ...gateway,
      ],
    };
  }
}
