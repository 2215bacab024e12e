import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { LogLevel } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { InterludeWsAdapter } from './gateway/interlude-ws.adapter';
import type { AppConfig } from './config/config.loader';
import { corsOptions } from './core/http/cors';
import { securityHeaders } from './core/http/security-headers';
import { streamRoutes } from './core/http/stream-routes';
import { trustedProxies } from './core/http/client-address';
import { streamCaps, trustProxies } from './core/http/connection-caps';
import { jsonBodyParser } from './core/http/json-body';
import { cacheValidationMetadata } from './core/validation/metadata-cache';
import { identityMiddleware } from './core/identity/identity.middleware';
import { IdentityResolver } from './core/identity/identity.resolver';
import { MetricsService } from './monitoring/metrics.service';
import { requestTracking } from './monitoring/request-tracking';
import { UserActivityService } from './monitoring/user-activity.service';
import {
  checkedLogLevel,
  createLogger,
  httpLogger,
  levelOfNestLevels,
  type LogLevelName,
} from './core/logging/http-logging';
import { LoggingModule } from './core/logging/logging.module';
import { startTracing } from './core/tracing/otel';
import { TracingShutdown } from './core/tracing/tracing-shutdown';
import { buildOpenApi } from './openapi';
import { resolveRoutes } from './routes';

export interface CreateAppOptions {
  /** Nest's switch, kept for callers: `false` silences every log line; a list logs from its lowest level. */
  logger?: LogLevel[] | false;
  /** JSON log lines: the level (`LOG_LEVEL` for `interlude serve`; default info) and where they go. */
  log?: { level?: string; destination?: DestinationStream };
}

function logLevel(options: CreateAppOptions): LogLevelName {
  if (options.log?.level !== undefined) return checkedLogLevel(options.log.level);
  return options.logger === undefined ? 'info' : levelOfNestLevels(options.logger);
}

/** Builds the whole server from a validated config: body limits, CORS, errors, routes, OpenAPI. */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const frontEnd = config.settings.general.front_end;
  cacheValidationMetadata();
  const logging = {
    level: logLevel(options),
    destination: options.log?.destination,
    oauthCallbackPath: frontEnd.oauth2_callback_path,
  };
  const logger = createLogger(logging);
  // Logs that go nowhere cost nothing: with level silent no per-request logging runs at all.
  const logs = logging.level !== 'silent';
  const root = AppModule.forRoot(config);
  root.imports = [
    ...(logs ? [LoggingModule.forRoot(logger)] : [LoggingModule.silent()]),
    ...(root.imports ?? []),
  ];
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set; the spans left are flushed on close.
  if (startTracing()) root.providers = [...(root.providers ?? []), TracingShutdown];
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bodyParser: false,
    bufferLogs: logs,
    logger: logs ? undefined : false,
  });
  if (logs) {
    app.useLogger(app.get(Logger));
    // First, so that requests refused before routing (413, malformed JSON, CORS) are logged too.
    app.use(httpLogger(logger, logging));
  }
  app.set('x-powered-by', false);
  app.use(securityHeaders(resolveRoutes(frontEnd)));
  app.set('query parser', 'simple');
  const { cors } = frontEnd;
  // With no origin allowed there is nothing to answer, so no CORS middleware runs at all.
  if (cors.allow_origins.length > 0 || cors.allow_origin_regex) app.enableCors(corsOptions(cors));
  const streams = streamRoutes(resolveRoutes(frontEnd));
  app.use(jsonBodyParser({ body: frontEnd.max_body_bytes, stream: frontEnd.max_stream_body_bytes }, streams));
  const trusted = trustedProxies(frontEnd.trust_proxy);
  app.use(trustProxies(trusted));
  app.use(
    streamCaps(streams, {
      perAddress: frontEnd.max_streams_per_address,
      perExecution: frontEnd.max_reattached_streams_per_execution,
      trusted,
    }),
  );
  app.use(identityMiddleware(app.get(IdentityResolver)));
  const activity = config.settings.general.enable_per_user_monitoring
    ? app.get(UserActivityService)
    : undefined;
  app.use(requestTracking(app.get(MetricsService), activity));
  app.useWebSocketAdapter(
    new InterludeWsAdapter(app, {
      maxPayload: frontEnd.websocket_max_message_bytes,
      pingSeconds: frontEnd.websocket_ping_seconds,
      maxConnectionsPerAddress: frontEnd.websocket_max_connections_per_address,
      trusted,
    }),
  );
  app.enableShutdownHooks();
  const document = buildOpenApi(app, config, AppModule);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  await app.init();
  return app;
}
