/** The paths from config that modules mount their routes under (legacy aliases included; null: left out). */
export interface Routes {
  workflow: string | null;
  legacyWorkflow: string | null;
  chat: string | null;
  legacyChat: string | null;
  completions: string | null;
  websocket: string | null;
  /** Swagger UI (its own Content-Security-Policy). */
  docs: string;
  oauth2Callback: string;
  /** NeMo Agent Toolkit's evaluation job routes (`front_end.evaluate.path`, default `/evaluate`). */
  evaluate: string | null;
  /** `POST /evaluate/item` (`front_end.evaluate_item.path`). */
  evaluateItem: string | null;
}

/** Whether a request path matches a route path of the table. */
export function matchesRoute(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  return (
    want.length === got.length &&
    want.every((part, i) => (part.startsWith(':') ? got[i] !== '' : part === got[i]))
  );
}

/**
 * Every request, for `MiddlewareConsumer.forRoutes`: Nest mounts a plain path with Express's `use()`,
 * which runs for every path under it (here all of them, unmatched ones too) and leaves `req.path`
 * whole. (`'*'` becomes `use('/{*path}')`, where `req.path` is `/`; `{ path: '*', method: ALL }` an
 * `all('/{*path}')` route, which decodes the path into parameters for each middleware.)
 */
export const ALL_ROUTES = '/';
