import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): unknown;
};

/** Every route Express holds, and which of them match a path (Express's own matching). */
function router(t: TestApp) {
  const { router } = t.app.getHttpAdapter().getInstance() as unknown as { router: { stack: Layer[] } };
  const routes = router.stack.filter((l) => l.route);
  return {
    paths: [...new Set(routes.map((l) => l.route!.path))],
    methodsAt: (path: string) =>
      new Set(routes.filter((l) => l.match(path)).flatMap((l) => Object.keys(l.route!.methods))),
  };
}

const CONFIGS: [string, string][] = [
  ['the defaults', ECHO_YAML],
  [
    'paths of its own, endpoints with each method, and per-user monitoring',
    `general:
  enable_per_user_monitoring: true
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

/** Routes that are not the API's: the page (a file server's 404) and Swagger UI's files. */
const notApi = (path: string) =>
  path === '/' ||
  path === '/icon.svg' ||
  path.startsWith('/assets/') ||
  path.startsWith('/docs') ||
  path === '/openapi.json';

describe('405 answers come from the router itself', () => {
  it.each(CONFIGS)(
    'with %s: every route answers another method with 405 and what it serves in Allow',
    async (_name, yaml) => {
      const t = await startApp(yaml);
      try {
        const { paths, methodsAt } = router(t);
        const checked = paths.filter((p) => !notApi(p) && !p.includes('*'));
        expect(checked.length).toBeGreaterThan(10);
        for (const pattern of checked) {
          const path = pattern.replace(/:[^/]+/g, 'x');
          const served = [...methodsAt(path)].map((m) => m.toUpperCase()).sort();
          const other = ['PATCH', 'PUT', 'DELETE', 'POST', 'GET'].find((m) => !served.includes(m))!;
          const res = await fetch(`${t.url}${path}`, { method: other });
          const allow = res.headers.get('allow')?.split(/,\s*/).sort();
          expect([other, path, res.status, allow]).toEqual([other, path, 405, served]);
        }
      } finally {
        await t.close();
      }
    },
  );

  it('POST /metrics, /health/ready and /monitor/users are 405 with Allow: GET', async () => {
    const t = await startApp(`general:\n  enable_per_user_monitoring: true\n${ECHO_YAML}`);
    try {
      for (const path of ['/metrics', '/health/ready', '/monitor/users']) {
        const res = await fetch(`${t.url}${path}`, { method: 'POST' });
        expect([path, res.status, res.headers.get('allow')]).toEqual([path, 405, 'GET']);
        expect(await res.json()).toEqual({ detail: 'Method Not Allowed' });
      }
    } finally {
      await t.close();
    }
  });
});
