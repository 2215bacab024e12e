import 'reflect-metadata';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { LogLevel } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import type { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { InterludeWsAdapter } from './gateway/interlude-ws.adapter';
import type { AppConfig } from './config/config.loader';
import { InterludeExpressAdapter } from './core/http/express-adapter';
import { HttpSettings } from './core/http/http-pipeline';
import {
  checkedLogLevel,
  createLogger,
  levelOfNestLevels,
  type LogLevelName,
} from './core/logging/http-logging';
import { LoggingModule } from './core/logging/logging.module';
import { RequestLog } from './core/logging/request-log';
import { NestPinoLogger } from './core/logging/nest-logger';
import { startupTimings } from './core/logging/startup-timings';
import { startTracing } from './core/tracing/otel';
import { TracingShutdown } from './core/tracing/tracing-shutdown';
import { ApiDocs, buildOpenApi } from './openapi';

export interface CreateAppOptions {
  /** Nest's switch, kept for callers: `false` silences every log line; a list logs from its lowest level. */
  logger?: LogLevel[] | false;
  /** JSON log lines: the level (`LOG_LEVEL` for `interlude serve`; default info) and where they go. */
  log?: { level?: string; destination?: DestinationStream };
  /** The interface it will listen on, when not general.front_end.host (`--host`): the Host check needs it. */
  host?: string;
}

function logLevel(options: CreateAppOptions): LogLevelName {
  if (options.log?.level !== undefined) return checkedLogLevel(options.log.level);
  return options.logger === undefined ? 'info' : levelOfNestLevels(options.logger);
}

/**
 * Builds the whole server from a validated config. The middleware the modules provide is mounted as
 * one by AppModule's `configure`: logging (LoggingModule), then security headers, Host check, CORS, body
 * limits and stream caps (CoreModule), then request metrics (MonitoringModule). Who asks is resolved
 * by CoreModule's global IdentityGuard once a request has a route. What is left here is Express
 * settings, the WebSocket adapter and the API docs.
 */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const frontEnd = config.settings.general.front_end;
  const logging = {
    level: logLevel(options),
    destination: options.log?.destination,
    oauthCallbackPath: frontEnd.oauth2_callback_path,
  };
  const sink = createLogger(logging);
  startupTimings.use(sink.logger);
  startupTimings.step('code loaded');
  // Logs that go nowhere cost nothing: with level silent no per-request logging runs at all.
  const logs = logging.level !== 'silent';
  const root = AppModule.forRoot(config, options.host);
  // Global: its RequestLog serves every module, and AppModule mounts its request logger first.
  root.imports = [
    logs ? LoggingModule.forRoot(sink, logging) : LoggingModule.silent(),
    ...(root.imports ?? []),
  ];
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set; the spans left are flushed on close.
  if (startTracing()) root.providers = [...(root.providers ?? []), TracingShutdown];
  startupTimings.step('tracing checked');
  const app = await NestFactory.create<NestExpressApplication>(root, new InterludeExpressAdapter(), {
    // Nest's own JSON parser answers a bad or oversized body itself, before any route; CoreModule's
    // parser instead keeps the error for the route to report in its own shape (FastAPI's 422 or
    // OpenAI's error), and gives streaming routes their own limit.
    bodyParser: false,
    // A module that cannot start (a missing key, an unreachable database) throws to the caller, which
    // says why on stderr: Nest's default would log it as one more JSON line on stdout and exit.
    abortOnError: false,
    logger: logs ? new NestPinoLogger(sink.logger) : false,
  });
  startupTimings.step('modules and providers created (database, Redis opened)');
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = frontEnd.keep_alive_seconds * 1000;
  // Node counts an idle keep-alive connection's wait for its next request's headers against this.
  server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1000);
  app.set('x-powered-by', false);
  // No ETag on API answers (NAT's server sends none): Express would hash every JSON body for a header
  // no client revalidates a POST or a status poll with. The page's files carry their own.
  app.set('etag', false);
  app.set('query parser', 'simple');
  const http = app.get(HttpSettings);
  app.useWebSocketAdapter(
    new InterludeWsAdapter(app, {
      maxPayload: frontEnd.websocket_max_message_bytes,
      pingSeconds: frontEnd.websocket_ping_seconds,
      maxConnectionsPerAddress: frontEnd.websocket_max_connections_per_address,
      maxBufferedBytesPerAddress: frontEnd.websocket_max_buffered_bytes_per_address,
      trusted: http.trusted,
      untrustedForwardedFor: http.untrustedForwardedFor,
      hosts: http.hosts,
    }),
  );
  app.enableShutdownHooks();
  // Swagger UI's script, stylesheets and icons come with every visit of /docs: logged only when they fail.
  const requestLog = app.get(RequestLog);
  app.use('/docs', (req: Request, _res: Response, next: NextFunction) => {
    if (req.path !== '/') requestLog.quiet(req);
    next();
  });
  app.get(ApiDocs).serve(() =>
    // A factory: the document is built at the first request for it, not at every start-up.
    SwaggerModule.setup('docs', app, () => buildOpenApi(app, config, AppModule), {
      jsonDocumentUrl: 'openapi.json',
      raw: ['json'],
    }),
  );
  await app.init();
  startupTimings.step('routes and middleware mounted');
  return app;
}
