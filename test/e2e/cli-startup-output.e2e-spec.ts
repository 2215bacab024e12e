import { config, serve, serveOnTerminal, stopServersAfterEach, type Serving } from '../utils/cli';
import { eventually } from '../utils/test-app';

// `npm test` builds first; run `npm run build` before `npx jest --selectProjects e2e`.
jest.setTimeout(40_000);
stopServersAfterEach();

const ARGS = ['--host', '127.0.0.1', '--port', '0'];
/** No database file shared with other tests; the price is one warning, which shows that warnings are shown. */
const ENV = { INTERLUDE_DB_URL: 'sqlite::memory:' };
const MEMORY_WARNING = 'db_url is sqlite::memory:: feedback is lost when the server stops';
/** Nest's start-up narration, which the default level leaves out. */
const NEST_NARRATION =
  /Mapped \{|dependencies initialized|successfully started|subscribed to the|Starting Nest/;

type LogLine = Record<string, unknown> & {
  req?: { method: string; url: string };
  res?: { statusCode: number };
};

function linesOf(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l !== '');
}

/** The files a page names in `src=` and `href=` (its script, stylesheets, icons), as URLs. */
async function assetsOf(pageUrl: string): Promise<string[]> {
  const html = await (await fetch(pageUrl)).text();
  return [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css|svg|png))"/g)].map((m) =>
    new URL(m[1], pageUrl).toString(),
  );
}

/** A visit of the built-in page and of /docs with everything they load, probes, and one workflow call. */
async function browseAndCall(s: Serving, requestId: string): Promise<void> {
  for (const page of [`${s.url}/`, `${s.url}/docs/`]) {
    const assets = await assetsOf(page);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const res = await fetch(asset);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
  }
  for (const probe of ['/health', '/metrics']) await (await fetch(`${s.url}${probe}`)).text();
  expect((await fetch(`${s.url}/assets/missing.js`)).status).toBe(404);
  const res = await fetch(`${s.url}/v1/workflow`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, cookie: 'nat-session=me' },
    body: JSON.stringify({ input_message: 'a city break' }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

describe('what `interlude serve` prints at the default level', () => {
  it('piped: the serving line (config, address, docs) and warnings; one JSON line per request with its ids, none for page assets or probes', async () => {
    const s = await serve(ARGS, ENV);
    expect(s.line).toBe(
      `Interlude serving "scripted" from ${config('default.yml')} at ${s.url} (docs: ${s.url}/docs)`,
    );
    await browseAndCall(s, 'the-call');
    await eventually(() => expect(s.output().stdout).toContain('"reqId":"the-call"'), 10_000);

    const { stdout, stderr } = s.output();
    expect(stderr).toBe('');
    const lines = linesOf(stdout);
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([s.line]);
    expect(lines.filter((l) => NEST_NARRATION.test(l))).toEqual([]);
    const logged = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);
    expect(logged.filter((e) => e.req === undefined)).toEqual([
      expect.objectContaining({ level: 40, context: 'Database', msg: MEMORY_WARNING }),
    ]);
    const requests = logged.filter((e) => e.req !== undefined);
    expect(requests.map((e) => `${e.req!.method} ${e.req!.url} ${e.res!.statusCode}`).sort()).toEqual([
      'GET / 200',
      'GET /assets/missing.js 404',
      'GET /docs/ 200',
      'POST /v1/workflow 200',
    ]);
    // For machines, a request's line keeps its ids.
    expect(requests.find((e) => e.reqId === 'the-call')).toMatchObject({
      msg: 'request completed',
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      executionId: expect.any(String),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it("LOG_LEVEL=debug adds Nest's module and route mapping", async () => {
    const s = await serve(ARGS, { ...ENV, LOG_LEVEL: 'debug' });
    await eventually(() => {
      const { stdout } = s.output();
      expect(stdout).toContain('"msg":"Mapped {/v1/workflow, POST} route"');
      expect(stdout).toContain('dependencies initialized');
      expect(stdout).toContain('start-up: listening');
    }, 10_000);
  });

  it('on a terminal: the warning, the serving line, and one short line per request', async () => {
    const s = await serveOnTerminal(ARGS, ENV);
    await browseAndCall(s, 'the-call');
    const call = printed('INFO', 'POST /v1/workflow → 200 (', /\d+ ms\)/);
    await eventually(() => expect(linesOf(s.output().stdout)).toContainEqual(call), 10_000);

    expect(linesOf(s.output().stdout)).toEqual([
      printed('WARN', `Database: ${MEMORY_WARNING}`),
      s.line,
      printed('INFO', 'GET / → 200 (', /\d+ ms\)/),
      printed('INFO', 'GET /docs/ → 200 (', /\d+ ms\)/),
      printed('INFO', 'GET /assets/missing.js → 404 (', /\d+ ms\)/),
      call,
    ]);
  });
});

/** A line as pino-pretty prints it on a terminal without colours: time, level, then `text` and `rest`. */
function printed(level: string, text: string, rest?: RegExp) {
  const literal = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expect.stringMatching(new RegExp(`^\\[[\\d:.]+\\] ${level}: ${literal}${rest?.source ?? ''}$`));
}
