import type { FrontEndConfig } from './config/config.schema';
import type { Routes } from './core/http/route-paths';

export function resolveRoutes(frontEnd: FrontEndConfig): Routes {
  const paths = frontEnd.workflow;
  const legacy = !frontEnd.disable_legacy_routes;
  return {
    workflow: paths.path,
    legacyWorkflow: legacy ? paths.legacy_path : null,
    chat: paths.openai_api_path,
    legacyChat: legacy ? paths.legacy_openai_api_path : null,
    completions: paths.openai_api_v1_path,
    websocket: paths.websocket_path,
    health: '/health',
    docs: '/docs',
    openapi: '/openapi.json',
    oauth2Callback: frontEnd.oauth2_callback_path,
    evaluate: endpointPath(frontEnd.evaluate, '/evaluate'),
    evaluateItem: endpointPath(frontEnd.evaluate_item, '/evaluate/item'),
    agui: frontEnd.ag_ui_path,
    endpoints: frontEnd.endpoints.flatMap((e) =>
      [e.path, legacy ? e.legacy_path : null]
        .filter((base): base is string => Boolean(base))
        .flatMap((base) => ['', '/stream', '/full'].map((s) => ({ method: e.method, path: `${base}${s}` }))),
    ),
  };
}

/** A NAT endpoint's path: its default when the endpoint or its path is not given, none when null. */
function endpointPath(endpoint: { path?: string | null } | undefined, fallback: string): string | null {
  return endpoint?.path === undefined ? fallback : endpoint.path;
}

/** Method and path of every route (`:param` segments match any one segment), for 405 answers. */
export function routeTable(routes: Routes): { method: string; path: string }[] {
  const table: { method: string; path: string }[] = [];
  const post = (path: string | null, ...suffixes: string[]) => {
    if (path !== null) for (const s of suffixes) table.push({ method: 'POST', path: `${path}${s}` });
  };
  post(routes.workflow, '', '/stream', '/full');
  post(routes.legacyWorkflow, '', '/stream', '/full');
  post(routes.chat, '', '/stream');
  post(routes.legacyChat, '', '/stream');
  post(routes.completions, '');
  post(routes.agui ?? null, '');
  if (routes.agui) table.push({ method: 'GET', path: `${routes.agui}/capabilities` });
  table.push(
    { method: 'GET', path: routes.health },
    { method: 'GET', path: routes.docs },
    { method: 'GET', path: routes.openapi },
    { method: 'GET', path: routes.oauth2Callback },
    { method: 'GET', path: `${routes.oauth2Callback}/start` },
    { method: 'POST', path: `${routes.oauth2Callback}/start` },
    { method: 'GET', path: '/executions' },
    { method: 'GET', path: '/executions/:id' },
    { method: 'DELETE', path: '/executions/:id' },
    { method: 'GET', path: '/executions/:id/stream' },
    { method: 'POST', path: '/executions/:id/interactions/:interactionId/response' },
    { method: 'GET', path: '/feedback' },
    { method: 'POST', path: '/feedback' },
    { method: 'GET', path: '/mcp/client/tool/list' },
    { method: 'GET', path: '/mcp/client/tool/list/per_user' },
    ...asyncJobRoutes(routes),
    ...routes.endpoints,
  );
  return table;
}

/** The async job and evaluation routes (JobsModule). */
function asyncJobRoutes(routes: Routes): { method: string; path: string }[] {
  const table: { method: string; path: string }[] = [];
  for (const base of [routes.workflow, routes.legacyWorkflow]) {
    if (base === null) continue;
    table.push({ method: 'POST', path: `${base}/async` }, { method: 'GET', path: `${base}/async/job/:id` });
  }
  if (routes.workflow !== null) {
    table.push(
      { method: 'GET', path: `${routes.workflow}/async/jobs` },
      { method: 'DELETE', path: `${routes.workflow}/async/job/:id` },
    );
  }
  if (routes.evaluate !== null) {
    table.push(
      { method: 'POST', path: routes.evaluate },
      { method: 'GET', path: `${routes.evaluate}/job/:id` },
      { method: 'GET', path: `${routes.evaluate}/jobs` },
    );
  }
  if (routes.evaluateItem !== null) table.push({ method: 'POST', path: routes.evaluateItem });
  return table;
}
