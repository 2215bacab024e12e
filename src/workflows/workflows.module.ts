import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import type { Routes } from '../core/http/route-paths';
import { ExecutionsModule } from '../executions/executions.module';
import { HttpExecutionsModule } from '../http-executions/http-executions.module';
import { createEndpointControllers } from './endpoint-controllers';
import { GenerateFace } from './generate-face';
import { createGenerateController } from './generate.controller';

/** NAT's workflow API: `/v1/workflow*`, `/generate*` and the configured `endpoints`. */
@Module({})
export class WorkflowsModule {
  static forRoot(config: AppConfig, routes: Routes): DynamicModule {
    const workflow = config.workflow;
    const interactiveBase = routes.workflow;
    const controllers: Type[] = [];
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
    return {
      module: WorkflowsModule,
      imports: [ExecutionsModule, HttpExecutionsModule],
      controllers,
      providers: [GenerateFace],
    };
  }
}
