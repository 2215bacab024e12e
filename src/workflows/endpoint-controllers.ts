import type { Type } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { createGenerateController } from './generate.controller';

/**
 * NAT's `general.front_end.endpoints`: each runs one function of `functions:` at its own path (and
 * legacy path) with its method, the way the workflow is served at `/v1/workflow`.
 */
export function createEndpointControllers(config: AppConfig): Type[] {
  const controllers: Type[] = [];
  const frontEnd = config.settings.general.front_end;
  frontEnd.endpoints.forEach((endpoint, i) => {
    const fn = config.functions.get(endpoint.function_name)!;
    const named = (versioned: boolean) => ({
      method: endpoint.method,
      description: endpoint.description,
      name: `Endpoint${i}${versioned ? '' : 'Legacy'}Controller`,
    });
    const legacy = frontEnd.disable_legacy_routes ? null : endpoint.legacy_path;
    for (const [base, versioned] of [
      [endpoint.path, true],
      [legacy, false],
    ] as const) {
      if (base) {
        controllers.push(
          createGenerateController({
            base,
            versioned,
            workflow: fn,
            interactiveBase: endpoint.path ?? null,
            endpoint: named(versioned),
          }),
        );
      }
    }
  });
  return controllers;
}
