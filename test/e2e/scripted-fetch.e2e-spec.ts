import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorOf, problemAt } from '../utils/config-helpers';
import { captureErrorLog, traceIn } from '../utils/internal-errors';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

const ALLOW_LOOPBACK =
  'general:\n  outbound: { allow_hosts: [127.0.0.1], max_response_bytes: 1000, timeout_seconds: 0.5 }\n';

function fetchYaml(url: string, general = ALLOW_LOOPBACK): string {
  return `${general}workflow:
  _type: scripted
  steps:
    - fetch: { url: '${url}', save_as: got }
  output: '{{got}}'
`;
}

describe('the scripted fetch step', () => {
  let api: Server;
  let base: string;
  const seen: string[] = [];
  const apps: TestApp[] = [];
  beforeAll(async () => {
    api = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/huge') return res.end('x'.repeat(2_000_000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 3000).unref();
      if (req.url?.startsWith('/missing')) return res.writeHead(404).end();
      res.end('fine');
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  let log: ReturnType<typeof captureErrorLog>;
  beforeEach(() => (log = captureErrorLog()));
  afterEach(() => {
    seen.length = 0;
    log.restore();
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    api.closeAllConnections();
    await new Promise((r) => api.close(r));
  });

  async function run(url: string, input: string, general?: string) {
    const t = await startApp(fetchYaml(url, general));
    apps.push(t);
    return postJson(`${t.url}/v1/workflow`, { input_message: input });
  }

  it('URL-encodes what it puts in the URL', async () => {
    const res = await run(`${base}/users/{{input}}?q={{input}}`, 'a b?c=1&d');
    expect(res.status).toBe(200);
    expect(seen).toEqual(['/users/a%20b%3Fc%3D1%26d?q=a%20b%3Fc%3D1%26d']);
  });

  it.each(['user-a/../../redirect?to=http://127.0.0.1', '..', '%2e%2e'])(
    'refuses the path value %j without calling anything',
    async (input) => {
      const res = await run(`${base}/users/{{input}}`, input);
      expect(res.status).toBe(422);
      expect(res.text).toContain('may not be');
      expect(seen).toEqual([]);
    },
  );

  it('a placeholder in the host is a config error, at its path in the file', () => {
    const err = errorOf(fetchYaml('http://{{input}}.example.com/x'));
    expect(problemAt(err, 'workflow.steps[0].fetch.url').message).toMatch(
      /no \{\{placeholder\}\} may choose the host/,
    );
    expect(problemAt(errorOf(fetchYaml('{{input}}')), 'workflow.steps[0].fetch.url').message).toMatch(
      /http\(s\)/,
    );
  });

  /** A failed fetch names a URL of the config: the caller reads a stable message, the log the detail. */
  function detailLogged(res: { status: number; json: Record<string, unknown> }): string {
    expect(res.status).toBe(422);
    expect(res.json.details).toBe('FetchError');
    return log.lineFor(traceIn(res.json.message));
  }

  it('fails past max_response_bytes and after timeout_seconds, instead of reading on', async () => {
    const huge = await run(`${base}/huge`, 'x');
    expect(detailLogged(huge)).toContain('answered more than 1000 bytes');
    const slow = await run(`${base}/slow`, 'x');
    expect(detailLogged(slow)).toContain('no answer within 0.5s');
  });

  it('refuses a loopback destination that general.outbound.allow_hosts does not list', async () => {
    const res = await run(`${base}/ok`, 'x', '');
    expect(detailLogged(res)).toContain('requests to 127.0.0.1 are refused');
    expect(res.text).not.toContain('127.0.0.1');
    expect(seen).toEqual([]);
  });

  it("never shows the URL's query string (a secret) in its error, nor the URL to the caller", async () => {
    const res = await run(`${base}/missing?api-key=s3cret`, 'x');
    const line = detailLogged(res);
    expect(line).toContain('/missing?… answered 404');
    expect(line).not.toContain('s3cret');
    expect(res.text).not.toContain('/missing');
  });
});
