import { resolveRoutes, routeTable } from '../../src/routes';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

/** `METHOD /path`, any `:param` named alike (the table matches a parameter whatever its name). */
const routeKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\/:[^/]+/g, '/:param')}`;

/** Every route the app serves, as Express holds them. */
function servedRoutes(t: TestApp): Set<string> {
  type Layer = { route?: { path: string; methods: Record<string, boolean> } };
  const { router } = t.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
  return new Set(
    router.stack.flatMap(({ route }) =>
      route ? Object.keys(route.methods).map((m) => routeKey(m, route.path)) : [],
    ),
  );
}

const CONFIGS: [string, string][] = [
  ['the defaults', ECHO_YAML],
  [
    'paths of its own, and endpoints with each method',
    `general:
  front_end:
    oauth2_callback_path: /oauth/cb
    workflow: { path: /api/run, legacy_path: /gen, openai_api_path: /api/chat, legacy_openai_api_path: /c }
    endpoints:
      - { method: POST, path: /tools/shout, legacy_path: /old/shout, function_name: shout }
      - { method: GET, path: /tools/ping, function_name: shout }
      - { method: PUT, path: /tools/put, function_name: shout }
      - { method: DELETE, path: null, legacy_path: /old/del, function_name: shout }
functions:
  shout: { _type: echo }
${ECHO_YAML}`,
  ],
  [
    'routes set to null',
    `general:
  front_end:
    disable_legacy_routes: true
    workflow: { path: null, openai_api_v1_path: null }
${ECHO_YAML}`,
  ],
];

describe('the route table behind 405 answers (src/routes.ts) is true', () => {
  it.each(CONFIGS)('with %s', async (_name, yaml) => {
    const t = await startApp(yaml);
    try {
      const routes = resolveRoutes(t.config.settings.general.front_end);
      const table = new Set(routeTable(routes).map((r) => routeKey(r.method, r.path)));
      const served = servedRoutes(t);
      // Every route it lists is served: no 405 sends a client to a method nobody answers.
      expect([...table].filter((r) => !served.has(r))).toEqual([]);
      // Every route served under a path from config is listed: a wrong method there is a 405.
      const bases = [
        routes.workflow,
        routes.legacyWorkflow,
        routes.chat,
        routes.legacyChat,
        routes.completions,
        routes.oauth2Callback,
        ...routes.endpoints.map((e) => e.path),
      ].filter((b): b is string => b !== null);
      const configured = [...served].filter((r) => {
        const path = r.split(' ')[1];
        return bases.some((b) => path === b || path.startsWith(`${b}/`));
      });
      expect(configured.filter((r) => !table.has(r))).toEqual([]);
      expect(configured.length).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
