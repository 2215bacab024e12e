import type { FrontEndConfig } from './config/config.schema';

/** Every path the server answers, resolved from config (legacy aliases included). */
export interface Routes {
  workflow: string | null;
  legacyWorkflow: string | null;
  chat: string | null;
  legacyChat: string | null;
  completions: string | null;
  health: string;
  docs: string;
  openapi: string;
  oauth2Callback: string;
}

export function resolveRoutes(frontEnd: FrontEndConfig): Routes {
  const paths = frontEnd.workflow;
  const legacy = !frontEnd.disable_legacy_routes;
  return {
    workflow: paths.path,
    legacyWorkflow: legacy ? paths.legacy_path : null,
    chat: paths.openai_api_path,
    legacyChat: legacy ? paths.legacy_openai_api_path : null,
    completions: paths.openai_api_v1_path,
    health: '/health',
    docs: '/docs',
    openapi: '/openapi.json',
    oauth2Callback: frontEnd.oauth2_callback_path,
  };
}

/** Method and path of every route, for 405 answers and the README's list. */
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
  table.push(
    { method: 'GET', path: routes.health },
    { method: 'GET', path: routes.docs },
    { method: 'GET', path: routes.openapi },
  );
  return table;
}
