import { createApp } from '../../src/main';
import { postJson } from '../utils/sse';
import { configFrom, eventually, type TestApp } from '../utils/test-app';
import { type Seen, traceitRegistry, TRACEIT, TRACE_ID, TRACEPARENT, traceOf } from '../utils/traceit';

/** Every JSON line an app logged. */
class LogCapture {
  readonly lines: string[] = [];
  write(chunk: string): void {
    this.lines.push(...chunk.split('\n').filter(Boolean));
  }
  get entries(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

async function startLoggedApp(yaml: string, log: LogCapture): Promise<TestApp> {
  const config = configFrom(yaml, {}, traceitRegistry());
  const app = await createApp(config, { log: { level: 'info', destination: log } });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

describe('logs: one JSON line per request, with its ids, and no credentials', () => {
  const log = new LogCapture();
  let t: TestApp;
  beforeAll(async () => (t = await startLoggedApp(TRACEIT, log)));
  afterAll(() => t.close());

  it("the request's line carries its request id, user id, execution id and trace id", async () => {
    const res = await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'hi' },
      { traceparent: TRACEPARENT, 'x-api-key': 'nvapi-logged-never' },
    );
    expect(res.status).toBe(200);
    const seen = res.json as unknown as Seen;
    const reqId = res.headers.get('x-request-id');
    expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
    const line = await eventually(() => {
      const found = log.entries.find((e) => e.reqId === reqId && e.msg === 'request completed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(line).toMatchObject({
      level: 30,
      reqId,
      userId: seen.userId,
      executionId: seen.executionId,
      traceId: TRACE_ID,
      req: { method: 'POST', url: '/v1/workflow' },
      res: { statusCode: 200 },
    });
    expect(seen.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line.responseTime).toBe('number');
  });

  it("Nest's Logger goes through pino, bound to the request and its execution", async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    const seen = res.json as unknown as Seen;
    const line = log.entries.find((e) => e.msg === 'looked it up' && e.executionId === seen.executionId);
    expect(line).toMatchObject({
      context: 'traceit',
      reqId: res.headers.get('x-request-id'),
      traceId: traceOf(res),
      userId: null,
    });
    // Nest's own start-up narration (modules, routes mapped) is debug: not at info
    expect(
      log.entries.filter((e) => e.context === 'RoutesResolver' || e.context === 'InstanceLoader'),
    ).toEqual([]);
  });

  it('a sane X-Request-Id from the caller is kept and echoed', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, { 'x-request-id': 'req-42' });
    expect(res.headers.get('x-request-id')).toBe('req-42');
    await eventually(() => expect(log.entries.some((e) => e.reqId === 'req-42')).toBe(true));
    const odd = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, { 'x-request-id': 'a b\n' });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never logs Authorization, Cookie or X-API-Key values, nor the OAuth callback query', async () => {
    await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'hi' },
      { authorization: 'Bearer token-logged-never', cookie: 'nat-session=cookie-logged-never; other=1' },
    );
    const callback = await fetch(`${t.url}/auth/redirect?code=code-logged-never&state=state-logged-never`);
    await callback.text();
    // The start link's state opens an anonymous flow until a browser confirms it: a capability too.
    for (const method of ['GET', 'POST']) {
      const start = await fetch(`${t.url}/auth/redirect/start?state=start-state-logged-never`, { method });
      await start.text();
    }
    const line = await eventually(() => {
      const found = log.entries.find(
        (e) => (e.req as { url?: string } | undefined)?.url === '/auth/redirect',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(line.res).toEqual({ statusCode: callback.status });
    const text = log.lines.join('\n');
    expect(text).toContain('"user-agent"'); // headers are logged, only the credentials are not
    for (const secret of [
      'token-logged-never',
      'cookie-logged-never',
      'nvapi-logged-never',
      'code-logged-never',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('state-logged-never');
    const starts = log.entries.filter(
      (e) => (e.req as { url?: string } | undefined)?.url === '/auth/redirect/start',
    );
    expect(starts).toHaveLength(2);
  });

  it('logs only allow-listed headers, and no callback query however the path is cased or slashed', async () => {
    await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'hi' },
      {
        'x-forwarded-access-token': 'fwd-token-logged-never',
        'x-auth-request-access-token': 'proxy-token-logged-never',
        'x-custom-secret': 'custom-logged-never',
        'x-request-id': 'allow-list',
      },
    );
    for (const path of ['/Auth/Redirect', '/auth/redirect/', '/AUTH/REDIRECT/']) {
      await (await fetch(`${t.url}${path}?code=code-${path.length}-never&state=s`)).text();
    }
    await eventually(() => {
      const urls = log.entries.map((e) => (e.req as { url?: string } | undefined)?.url);
      expect(urls).toEqual(expect.arrayContaining(['/Auth/Redirect', '/auth/redirect/', '/AUTH/REDIRECT/']));
    });
    const line = log.entries.find((e) => e.reqId === 'allow-list' && e.req !== undefined)!;
    expect(Object.keys((line.req as { headers: object }).headers)).toEqual(
      expect.arrayContaining(['user-agent', 'content-type']),
    );
    const text = log.lines.join('\n');
    for (const secret of ['fwd-token', 'proxy-token', 'custom-logged-never', '-never&state']) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/code=code-\d+-never/);
  });

  it('health probes and metric scrapes are not logged; the requests around them are', async () => {
    for (const path of ['/health', '/metrics', '/Health/']) {
      await (await fetch(`${t.url}${path}`, { headers: { 'x-request-id': 'probe' } })).text();
    }
    await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, { 'x-request-id': 'after-probes' });
    await eventually(() =>
      expect(log.entries.some((e) => e.reqId === 'after-probes' && e.msg === 'request completed')).toBe(true),
    );
    expect(log.entries.filter((e) => e.reqId === 'probe')).toEqual([]);
  });

  it('a request refused before routing (malformed JSON) is logged too', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, '{"input_message": ', { 'x-request-id': 'bad-json' });
    expect(res.status).toBe(422);
    expect(traceOf(res)).toBeNull(); // no execution, no trace id
    await eventually(() =>
      expect(log.entries.find((e) => e.reqId === 'bad-json')).toMatchObject({ res: { statusCode: 422 } }),
    );
  });
});
