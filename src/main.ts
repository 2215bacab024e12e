import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';
import type { LogLevel } from '@nestjs/common';
import { AppModule } from './app.module';
import type { AppConfig } from './config/config.loader';
import type { CorsConfig } from './config/config.schema';
import { AppExceptionFilter } from './core/http/app-exception.filter';
import { jsonBodyParser } from './core/http/json-body';
import { resolveRoutes, routeTable } from './routes';

export interface CreateAppOptions {
  logger?: LogLevel[] | false;
}

function corsOptions(cors: CorsConfig): CorsOptions {
  const origins: (string | RegExp)[] = [...cors.allow_origins];
  if (cors.allow_origin_regex) origins.push(new RegExp(cors.allow_origin_regex));
  const any = cors.allow_origins.includes('*');
  return {
    // By default no origin is allowed: the browser gets no Access-Control-Allow-Origin.
    origin: any ? true : origins.length > 0 ? origins : false,
    methods: cors.allow_methods.includes('*') ? undefined : cors.allow_methods,
    allowedHeaders: cors.allow_headers.includes('*') ? undefined : cors.allow_headers,
    exposedHeaders: cors.expose_headers,
    credentials: cors.allow_credentials,
    maxAge: cors.max_age,
  };
}

export function buildOpenApi(app: NestExpressApplication, config: AppConfig): OpenAPIObject {
  const frontEnd = config.settings.general.front_end;
  const builder = new DocumentBuilder()
    .setTitle('Interlude')
    .setDescription(
      `Agent workflow server (NeMo Agent Toolkit compatible). Workflow: ${config.workflow.type} — ${config.workflow.description}`,
    )
    .setVersion(process.env.npm_package_version ?? '0.1.0');
  if (frontEnd.root_path) builder.addServer(frontEnd.root_path);
  return SwaggerModule.createDocument(app, builder.build());
}

/** Builds the whole server from a validated config: body limits, CORS, errors, routes, OpenAPI. */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const frontEnd = config.settings.general.front_end;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: options.logger ?? ['error', 'warn', 'log'],
  });
  app.set('x-powered-by', false);
  app.set('query parser', 'simple');
  const { cors } = frontEnd;
  // With no origin allowed there is nothing to answer, so no CORS middleware runs at all.
  if (cors.allow_origins.length > 0 || cors.allow_origin_regex) app.enableCors(corsOptions(cors));
  app.use(jsonBodyParser(frontEnd.max_body_bytes));
  app.useGlobalFilters(new AppExceptionFilter(routeTable(resolveRoutes(frontEnd))));
  app.enableShutdownHooks();
  const document = buildOpenApi(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  await app.init();
  return app;
}
