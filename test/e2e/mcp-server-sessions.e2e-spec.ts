import { mcpClient } from '../utils/mcp-client';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

const ACCEPT = 'application/json, text/event-stream';

/** An `initialize` as a client of `protocolVersion` sends it, over plain fetch. */
function initialize(url: string, headers: Record<string, string> = {}, protocolVersion = '2025-06-18') {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

function listTools(url: string, sessionId: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
}

describe('MCP server face: sessions and origins', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each(['2025-06-18', '2025-11-25'])(
    'negotiates protocol version %s and opens a session',
    async (version) => {
      const res = await initialize(t.url, {}, version);
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
      const body = await res.text();
      expect(body).toContain(`"protocolVersion":"${version}"`);
    },
  );

  it('answers with the trace it was sent (Observability-Trace-Id), as every face', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await initialize(t.url, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(res.status).toBe(200);
    expect(res.headers.get('observability-trace-id')).toBe(traceId);
  });

  it('answers 404 to a session it does not know, and after the client ends its session (DELETE)', async () => {
    expect((await listTools(t.url, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const mcp = await mcpClient(t.url);
    const sessionId = mcp.transport.sessionId!;
    expect((await listTools(t.url, sessionId)).status).toBe(200);
    await mcp.close();
    expect((await listTools(t.url, sessionId)).status).toBe(404);
  });

  it("answers 404 to another identity's session id", async () => {
    const ana = await mcpClient(t.url, { headers: { cookie: 'nat-session=ana' } });
    try {
      const sessionId = ana.transport.sessionId!;
      expect((await listTools(t.url, sessionId, { cookie: 'nat-session=ana' })).status).toBe(200);
      const bob = await listTools(t.url, sessionId, { cookie: 'nat-session=bob' });
      expect(bob.status).toBe(404);
      expect(await bob.json()).toMatchObject({ error: { message: 'Session not found' } });
      expect((await listTools(t.url, sessionId)).status).toBe(404);
    } finally {
      await ana.close();
    }
  });

  it('refuses a page of another site (Origin), as the WebSocket does, and serves its own pages', async () => {
    const evil = await initialize(t.url, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({
      error: { message: expect.stringMatching(/Origin not allowed/) },
    });
    const own = await initialize(t.url, { origin: t.url });
    expect(own.status).toBe(200);
  });

  it("holds the SDK client's GET stream open: a second GET on its session is 409", async () => {
    const mcp = await mcpClient(t.url);
    try {
      const controller = new AbortController();
      const res = await fetch(`${t.url}/mcp`, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': mcp.transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        signal: controller.signal,
      });
      // The SDK client opened the session's one standalone stream right after initialize.
      expect(res.status).toBe(409);
      controller.abort();
    } finally {
      await mcp.close();
    }
  });
});
