import { matchesRoute, type Routes } from './route-paths';

/** Whether a request will be answered with a stream: by its path, or (chat completions) by its body. */
export interface StreamRoutes {
  byPath(path: string): boolean;
  /** Paths whose body says whether they stream (`"stream": true`). */
  byBody(path: string): boolean;
  /** The execution a re-attaching stream follows, if the path is one. */
  reattached(path: string): string | undefined;
}

const REATTACH = '/executions/:id/stream';

export function streamRoutes(routes: Routes): StreamRoutes {
  const paths = new Set<string>();
  const add = (base: string | null, ...suffixes: string[]) => {
    if (base !== null) for (const s of suffixes) paths.add(`${base}${s}`.toLowerCase());
  };
  add(routes.workflow, '/stream', '/full');
  add(routes.legacyWorkflow, '/stream', '/full');
  add(routes.chat, '/stream');
  add(routes.legacyChat, '/stream');
  // AG-UI runs stream (and a waiting one outlives its request): the streaming body limit and caps.
  add(routes.agui ?? null, '');
  const normal = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path).toLowerCase();
  const completions = routes.completions?.toLowerCase();
  return {
    byPath: (path) => {
      const normalised = normal(path);
      return (
        paths.has(normalised) || (normalised.startsWith('/executions/') && matchesRoute(REATTACH, normalised))
      );
    },
    byBody: (path) => completions !== undefined && normal(path) === completions,
    reattached: (path) =>
      path.startsWith('/executions/') && matchesRoute(REATTACH, path) ? path.split('/')[2] : undefined,
  };
}
