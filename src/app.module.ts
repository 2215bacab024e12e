import {
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from './config/config.loader';
import type { FrontEndConfig } from './config/config.schema';
import { ServerConfigModule } from './config/server-config.module';
import { CoreModule } from './core/core.module';
import { AppExceptionFilter } from './core/http/app-exception.filter';
import { A2aModule } from './a2a/a2a.module';
import { AguiModule } from './agui/agui.module';
import { SocketOrigins } from './core/http/allowed-origin';
import { trustedProxies, UntrustedForwardedFor } from './core/http/client-address';
import { HostCheck } from './core/http/host-check';
import { HttpMiddleware, type HttpSettings } from './core/http/http-pipeline';
import { mountAsOne } from './core/http/request-middleware';
import { RequestLogging } from './core/logging/logging.module';
import { ExecutionsModule } from './executions/executions.module';
import { FeedbackModule } from './feedback/feedback.module';
import { GatewayModule } from './gateway/gateway.module';
import { HttpInteractiveModule } from './http-interactive/http-interactive.module';
import { JobsModule } from './jobs/jobs.module';
import { EvaluateItemRoutesModule } from './jobs/evaluation/evaluate-item.module';
import { McpModule } from './mcp/mcp.module';
import { McpServerModule } from './mcp-server/mcp-server.module';
import { MonitoringMiddleware } from './monitoring/monitoring-middleware';
import { MonitoringModule } from './monitoring/monitoring.module';
import { OpenAiModule } from './openai/openai.module';
import { ResponsesModule } from './responses/responses.module';
import { ApiDocs } from './openapi';
import { resolveRoutes } from './routes';
import { UiModule } from './ui/ui.module';
import { pageAttachments } from './ui/page-files';
import { ConversationsModule } from './conversations/conversations.module';
import { WorkflowsModule } from './workflows/workflows.module';

/**
 * What core's HTTP middleware takes from `general.front_end`; `bind` is the interface listened on when
 * it is not `host` (`interlude serve --host`).
 */
export function httpSettings(frontEnd: FrontEndConfig, bind = frontEnd.host): HttpSettings {
  const trusted = trustedProxies(frontEnd.trust_proxy);
  const hosts = new HostCheck({
    bind,
    publicBaseUrl: frontEnd.public_base_url,
    allowedHosts: frontEnd.allowed_hosts,
  });
  return {
    routes: resolveRoutes(frontEnd),
    cors: frontEnd.cors,
    body: { body: frontEnd.max_body_bytes, stream: frontEnd.max_stream_body_bytes },
    trusted,
    untrustedForwardedFor: new UntrustedForwardedFor(trusted),
    hosts,
    socketOrigins: new SocketOrigins(hosts.hosts, frontEnd.cors),
    streams: {
      perAddress: frontEnd.max_streams_per_address,
      perExecution: frontEnd.max_reattached_streams_per_execution,
    },
  };
}

/**
 * The composition root: one module per folder, each face mounted under the paths the config gives
 * it (and left out when the config removes them).
 */
@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig, bind?: string): DynamicModule {
    const frontEnd = config.settings.general.front_end;
    const routes = resolveRoutes(frontEnd);
    return {
      module: AppModule,
      imports: [
        ServerConfigModule.forRoot(config),
        CoreModule.forRoot(httpSettings(frontEnd, bind)),
        ExecutionsModule,
        WorkflowsModule.forRoot(config, routes),
        OpenAiModule.forRoot(config, routes),
        HttpInteractiveModule.forRoot(routes.oauth2Callback),
        ...(routes.websocket ? [GatewayModule.forRoot(routes.websocket)] : []),
        AguiModule.forRoot(config),
        A2aModule.forRoot(config),
        ResponsesModule.forRoot(config),
        FeedbackModule,
        McpModule,
        McpServerModule.forRoot(config),
        EvaluateItemRoutesModule.forRoot(routes.evaluateItem),
        MonitoringModule.forRoot({ perUserMonitoring: config.settings.general.enable_per_user_monitoring }),
        JobsModule.forRoot(config, routes),
        ...(frontEnd.ui_path !== null
          ? [
              ConversationsModule,
              UiModule.forRoot(frontEnd.ui_path, {
                rootPath: frontEnd.root_path,
                websocket: routes.websocket,
                workflow: routes.workflow ?? routes.legacyWorkflow,
                title: frontEnd.ui.title ?? config.workflow.type,
                description: frontEnd.ui.description ?? config.workflow.description ?? '',
                examples: frontEnd.ui.example_prompts,
                attachments: pageAttachments(config.workflow.images, frontEnd.websocket_max_message_bytes),
              }),
            ]
          : []),
      ],
      providers: [{ provide: APP_FILTER, useClass: AppExceptionFilter }, ApiDocs],
    };
  }

  constructor(
    @Optional() private readonly logging?: RequestLogging,
    @Optional() private readonly http?: HttpMiddleware,
    @Optional() private readonly monitoring?: MonitoringMiddleware,
  ) {}

  /**
   * Every module's request middleware as one, in this order: logging first (a request refused before
   * routing is logged too), then monitoring's (draining; metrics and the requests in flight, so those
   * core refuses and bodies still arriving count too), then core's (headers, Host check, CORS, body,
   * proxies, stream caps).
   */
  configure(consumer: MiddlewareConsumer): void {
    mountAsOne(consumer, [this.logging, this.monitoring, this.http]);
  }
}
