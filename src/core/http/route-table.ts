import { Injectable, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_PATH, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { PAGE } from './page.decorator';
import { matchesRoute } from './route-paths';
import { STREAMS, type StreamingRoute } from './streams.decorator';

/** One route Nest serves: its method, its full path (`:param` segments), and how it streams. */
export interface ServedRoute {
  method: string;
  path: string;
  streams?: StreamingRoute;
}

/** Whether a request will be answered with a stream: by its path, or (chat completions) by its body. */
export interface StreamRoutes {
  byPath(path: string): boolean;
  /** Paths whose body says whether they stream (`"stream": true`). */
  byBody(path: string): boolean;
  /** The execution a re-attaching stream follows, if the path is one. */
  reattached(path: string): string | undefined;
}

const join = (...parts: (string | undefined)[]): string =>
  `/${parts
    .flatMap((p) => (p ?? '').split('/'))
    .filter(Boolean)
    .join('/')}`;

/** The path without trailing slashes (most paths have none: no regular expression for them). */
const normal = (path: string) =>
  path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') || '/' : path;

const asList = (value: unknown): (string | undefined)[] =>
  Array.isArray(value) ? (value as string[]) : [value as string | undefined];

/**
 * The routes as Nest registered them: each module's mount path (RouterModule), its controllers' paths
 * and their handlers' methods and paths, read from the decorators' metadata. It is the one table of
 * the server's routes: 405 answers and `Allow` come from it, and so do the streaming routes the
 * middleware before routing must know (handlers marked `@Streams()`). Read once, at the first use,
 * when every module has been created (RouterModule records its paths as it is created).
 */
@Injectable()
export class RouteTable {
  private served?: ServedRoute[];
  private streaming?: StreamRoutes;

  constructor(private readonly modules: ModulesContainer) {}

  get routes(): ServedRoute[] {
    return (this.served ??= this.read());
  }

  /** The methods a path is served with (empty for an unknown path). */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    const at = normal(path);
    for (const route of this.routes) if (matchesRoute(route.path, at)) methods.add(route.method);
    return [...methods];
  }

  get streams(): StreamRoutes {
    return (this.streaming ??= streamRoutes(this.routes));
  }

  private read(): ServedRoute[] {
    const scanner = new MetadataScanner();
    const routes: ServedRoute[] = [];
    for (const module of this.modules.values()) {
      const mount = (Reflect.getMetadata(MODULE_PATH + this.modules.applicationId, module.metatype) ??
        Reflect.getMetadata(MODULE_PATH, module.metatype)) as string | undefined;
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as Type | undefined;
        if (!controller || Reflect.getMetadata(PAGE, controller)) continue;
        const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
        for (const name of scanner.getAllMethodNames(controller.prototype)) {
          const handler = (controller.prototype as Record<string, unknown>)[name] as object;
          const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
          if (paths === undefined) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
          // A handler for every method never answers 405, and a path it serves is known to all.
          if (method === 'ALL') continue;
          const streams = Reflect.getMetadata(STREAMS, handler) as StreamingRoute | undefined;
          for (const prefix of prefixes) {
            for (const path of asList(paths)) {
              routes.push({ method, path: join(mount, prefix, path), ...(streams ? { streams } : {}) });
            }
          }
        }
      }
    }
    return routes;
  }
}

/** The streaming routes of the table, looked up per request: fixed paths in a set, the rest matched. */
function streamRoutes(routes: ServedRoute[]): StreamRoutes {
  const fixed = new Set<string>();
  const patterns: (ServedRoute & { prefix: string })[] = [];
  const byBody = new Set<string>();
  for (const route of routes) {
    if (!route.streams) continue;
    if (route.streams.whenBodyAsks) byBody.add(route.path.toLowerCase());
    else if (route.path.includes('/:')) {
      patterns.push({ ...route, prefix: route.path.slice(0, route.path.indexOf('/:') + 1) });
    } else fixed.add(route.path.toLowerCase());
  }
  // Most requests are to no pattern's fixed start: they cost a `startsWith` each, not a split.
  const matching = (path: string) =>
    patterns.find((r) => path.startsWith(r.prefix) && matchesRoute(r.path, path));
  return {
    byPath: (path) => {
      const at = normal(path);
      return fixed.has(at.toLowerCase()) || (patterns.length > 0 && matching(at) !== undefined);
    },
    byBody: (path) => byBody.size > 0 && byBody.has(normal(path).toLowerCase()),
    reattached: (path) => {
      const route = patterns.length > 0 ? matching(normal(path)) : undefined;
      if (!route?.streams?.execution) return undefined;
      const at = route.path.split('/').indexOf(`:${route.streams.execution}`);
      return at < 0 ? undefined : normal(path).split('/')[at];
    },
  };
}
