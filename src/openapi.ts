import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { MODULE_PATH } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { Module } from '@nestjs/core/injector/module.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from './config/config.loader';
import { GenerateDocs } from './workflows/generate-docs';

/**
 * Swagger UI (`/docs`) and `/openapi.json` are plain Express routes, so they pass only the middleware
 * mounted before them. They are set up when the modules initialise: after Nest has mounted the modules'
 * middleware (security headers, CORS, logging…), before its 404 handler.
 */
@Injectable()
export class ApiDocs implements OnModuleInit {
  private setup?: () => void;

  serve(setup: () => void): void {
    this.setup = setup;
  }

  onModuleInit(): void {
    this.setup?.();
  }
}

/** Which module a route belongs to: its controller's, under that module's mount path if it has one. */
interface Owner {
  controllers: Set<string>;
  mount?: string;
}

/** The modules in the order they are declared, from `root`: each one, then what it imports. */
function declaredModules(app: NestExpressApplication, root: Type): Owner[] {
  const container = app.get(ModulesContainer);
  const owners: Owner[] = [];
  const seen = new Set<Module>();
  const visit = (module: Module) => {
    if (seen.has(module)) return;
    seen.add(module);
    const mount = Reflect.getMetadata(MODULE_PATH + container.applicationId, module.metatype) as
      string | undefined;
    const controllers = new Set([...module.controllers.values()].map((w) => w.metatype?.name ?? ''));
    if (controllers.size > 0) owners.push({ controllers, mount });
    for (const imported of module.imports) visit(imported);
  };
  const start = [...container.values()].find((m) => m.metatype === root);
  if (start) visit(start);
  return owners;
}

/**
 * The paths in the order the modules declare them. Nest scans modules level by level, so the routes
 * mounted under paths from config (in modules one level down) would come after every fixed route, and
 * Swagger UI would list the workflow's routes after `/executions` and `/health`.
 */
function inDeclaredOrder(document: OpenAPIObject, owners: Owner[]): void {
  const under = (path: string, mount?: string) =>
    mount === undefined || path === mount || path.startsWith(`${mount}/`);
  const rank = (path: string, operations: object) => {
    const controller = Object.values(
      operations as Record<string, { operationId?: string }>,
    )[0]?.operationId?.split('_')[0];
    const candidates = owners
      .map((owner, at) => ({ owner, at }))
      .filter(({ owner }) => controller && owner.controllers.has(controller) && under(path, owner.mount));
    // The longest mount path wins: `/v1/chat/completions` is not under `/v1/chat`'s mount.
    candidates.sort((a, b) => (b.owner.mount?.length ?? 0) - (a.owner.mount?.length ?? 0));
    return candidates[0]?.at ?? owners.length;
  };
  const sorted = Object.entries(document.paths)
    .map(([path, operations], i) => ({ path, operations, rank: rank(path, operations), i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i);
  document.paths = Object.fromEntries(sorted.map((p) => [p.path, p.operations]));
}

/** The OpenAPI document: the controllers' own, and what the generate routes take from config. */
export function buildOpenApi(app: NestExpressApplication, config: AppConfig, root: Type): OpenAPIObject {
  const frontEnd = config.settings.general.front_end;
  const builder = new DocumentBuilder()
    .setTitle('Interlude')
    .setDescription(
      `Agent workflow server (NeMo Agent Toolkit compatible). Workflow: ${config.workflow.type} — ${config.workflow.description}`,
    )
    .setVersion(process.env.npm_package_version ?? '0.1.0');
  if (frontEnd.root_path) builder.addServer(frontEnd.root_path);
  const generate = app.get(GenerateDocs);
  const document = SwaggerModule.createDocument(app, builder.build(), { extraModels: generate.models });
  inDeclaredOrder(document, declaredModules(app, root));
  generate.amend(document);
  return document;
}
