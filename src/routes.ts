import type { FrontEndConfig } from './config/config.schema';
import type { Routes } from './core/http/route-paths';

/**
 * The paths from config that modules mount their controllers under (null: the route is left out).
 * Which routes exist, with which methods, is the router's to say (core/http/route-table.ts).
 */
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
    docs: '/docs',
    oauth2Callback: frontEnd.oauth2_callback_path,
    evaluate: endpointPath(frontEnd.evaluate, '/evaluate'),
    evaluateItem: endpointPath(frontEnd.evaluate_item, '/evaluate/item'),
  };
}

/** A NAT endpoint's path: its default when the endpoint or its path is not given, none when null. */
function endpointPath(endpoint: { path?: string | null } | undefined, fallback: string): string | null {
  return endpoint?.path === undefined ? fallback : endpoint.path;
}
