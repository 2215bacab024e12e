import type { DynamicModule, ModuleMetadata } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';

/** Ordinary controllers served under a path the config gives, with the providers they get there. */
export interface RouteMount {
  path: string;
  module: DynamicModule;
}

/**
 * The one way a face serves its controllers at a path the config gives (fixed paths are the
 * controller's own `@Controller('…')`; the WebSocket gateway's path is set on its class, as Nest's
 * gateways take it). A mount of controllers at `path`. RouterModule gives a path to a module class, so each mount has a
 * module class of its own: the controllers stay ordinary classes, one of them can be served at two
 * paths (`/v1/workflow` and its legacy alias `/generate`) with different providers at each, and the
 * path is kept per application, so apps built from different configs in one process do not meet.
 * `name` names the module in Nest's messages.
 */
export function mountAt(
  path: string,
  name: string,
  metadata: Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'>,
): RouteMount {
  const mount = class {};
  Object.defineProperty(mount, 'name', { value: name });
  return { path, module: { module: mount, ...metadata } };
}

/** The modules of the mounts, and the RouterModule that puts each under its path. */
export function mounted(mounts: RouteMount[]): NonNullable<ModuleMetadata['imports']> {
  return [
    ...mounts.map((m) => m.module),
    RouterModule.register(mounts.map((m) => ({ path: m.path, module: m.module.module }))),
  ];
}
