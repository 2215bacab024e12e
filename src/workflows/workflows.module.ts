import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { mountAt, mounted, type RouteMount } from '../core/http/route-mount';
import type { Routes } from '../core/http/route-paths';
import { ExecutionsModule } from '../executions/executions.module';
import { HttpRespondersModule } from '../http-responders/http-responders.module';
import { ENDPOINT_CONTROLLERS } from './endpoint.controller';
import { GenerateDocs, type GenerateMountDocs } from './generate-docs';
import { GenerateFace } from './generate-face';
import { GenerateRoute } from './generate-route';
import { LegacyGenerateController, WorkflowController } from './generate.controller';

interface GenerateMount {
  mount: RouteMount;
  docs: GenerateMountDocs;
}

function generateMount(
  name: string,
  controller: Type,
  route: GenerateRoute,
  method: GenerateMountDocs['method'] = 'post',
  endpoint?: GenerateMountDocs['endpoint'],
): GenerateMount {
  return {
    mount: mountAt(route.base, name, {
      imports: [HttpRespondersModule],
      controllers: [controller],
      providers: [{ provide: GenerateRoute, useValue: route }],
    }),
    docs: {
      path: route.base,
      method,
      input: route.input,
      from: method === 'get' || method === 'delete' ? 'query' : 'body',
      endpoint,
    },
  };
}

/**
 * Where the generate routes are served: the workflow at its path and legacy path, and each of NAT's
 * `general.front_end.endpoints` at its own (and legacy) path with its method.
 */
export function generateMounts(config: AppConfig, routes: Routes): GenerateMount[] {
  const mounts: GenerateMount[] = [];
  const workflow = config.workflow;
  if (routes.workflow) {
    const versioned = new GenerateRoute(routes.workflow, workflow, true, routes.workflow, false);
    mounts.push(generateMount('WorkflowRoutes', WorkflowController, versioned));
  }
  if (routes.legacyWorkflow) {
    const legacy = new GenerateRoute(routes.legacyWorkflow, workflow, false, routes.workflow, false);
    mounts.push(generateMount('LegacyWorkflowRoutes', LegacyGenerateController, legacy));
  }
  const frontEnd = config.settings.general.front_end;
  frontEnd.endpoints.forEach((endpoint, i) => {
    const fn = config.functions.get(endpoint.function_name)!;
    const legacy = frontEnd.disable_legacy_routes ? null : endpoint.legacy_path;
    const interactive = endpoint.path ?? null;
    for (const [base, versioned] of [
      [endpoint.path, true],
      [legacy, false],
    ] as const) {
      if (!base) continue;
      const name = `Endpoint${i}${versioned ? '' : 'Legacy'}`;
      mounts.push(
        generateMount(
          `${name}Routes`,
          ENDPOINT_CONTROLLERS[endpoint.method],
          new GenerateRoute(base, fn, versioned, interactive, true),
          endpoint.method.toLowerCase() as GenerateMountDocs['method'],
          { name: `${name}Controller`, summary: endpoint.description },
        ),
      );
    }
  });
  return mounts;
}

/** NAT's workflow API: `/v1/workflow*`, `/generate*` and the configured `endpoints`. */
@Module({})
export class WorkflowsModule {
  static forRoot(config: AppConfig, routes: Routes): DynamicModule {
    const mounts = generateMounts(config, routes);
    return {
      module: WorkflowsModule,
      imports: [ExecutionsModule, ...mounted(mounts.map((m) => m.mount))],
      providers: [
        GenerateFace,
        { provide: GenerateDocs, useValue: new GenerateDocs(mounts.map((m) => m.docs)) },
      ],
      exports: [GenerateDocs],
    };
  }
}
