import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import WebSocket from 'ws';
import { config as configFile } from '../utils/cli';
import { LogCapture, startLoggedApp } from '../utils/logged-app';
import { configFrom, type TestApp } from '../utils/test-app';
import { isComplete, userMessage, WsClient } from '../utils/ws-client';

/**
 * The NeMo Agent Toolkit UI run as its README says (only NAT_BACKEND_URL set, here to this server's
 * address). The browser opens `ws://localhost:3100/ws?session=<its cookie>&conversation_id=<id>` on the
 * UI's own server, whose proxy (http-proxy, changeOrigin and xfwd on) rewrites the path to /websocket
 * and the Host to NAT_BACKEND_URL's, adds X-Forwarded-For/-Port/-Proto, and copies the browser's
 * Origin and Cookie onto the upgrade. This opens the socket with exactly those headers.
 */
function throughNatUiProxy(t: TestApp, origin = 'http://localhost:3100') {
  const session = `session_${Date.now()}_k3j5h2l9x`;
  const conversationId = randomUUID();
  return {
    conversationId,
    connect: () =>
      WsClient.connect(
        t.url,
        { session, conversation_id: conversationId },
        {
          // Host: what NAT_BACKEND_URL names (here 127.0.0.1:<port>), which `ws` sends from the URL.
          headers: {
            origin,
            cookie: `nemo-agent-toolkit-session=${session}`,
            'x-forwarded-for': '127.0.0.1',
            'x-forwarded-port': '3100',
            'x-forwarded-proto': 'ws',
            'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
          },
        },
      ),
  };
}

describe('the NeMo Agent Toolkit UI over WebSocket, with config/default.yml', () => {
  const log = new LogCapture();
  let t: TestApp;
  beforeAll(async () => {
    const yaml = readFileSync(configFile('default.yml'), 'utf8');
    t = await startLoggedApp(configFrom(yaml, { INTERLUDE_DB_URL: 'sqlite::memory:' }), log);
  });
  afterAll(() => t.close());

  it("its proxy's handshake (the browser's Origin http://localhost:3100) gets a whole streamed chat", async () => {
    const ui = throughNatUiProxy(t);
    const ws = await ui.connect();
    try {
      ws.send(
        userMessage('a weekend trip', { schema_type: 'chat_stream', conversation_id: ui.conversationId }),
      );
      const answer = await ws.until(isComplete, 10_000);
      const text = answer
        .filter((m) => m.type === 'system_response_message' && m.status === 'in_progress')
        .map((m) => (m.content as { text?: string }).text ?? '')
        .join('');
      expect(text).toBe('Plan for "a weekend trip": Lisbon for three days, then Porto.');
      expect(answer.every((m) => m.conversation_id === ui.conversationId)).toBe(true);
      expect(ws.socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      ws.close();
    }
  });

  it("its HTTP mode, which forwards the browser's own Host (localhost:3100) to /chat/stream, is served too", async () => {
    // Its server-side fetch() passes the browser's headers on, Host included (no changeOrigin there).
    const { port } = new URL(t.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request(
        {
          hostname: '127.0.0.1',
          port,
          method: 'POST',
          path: '/chat/stream',
          headers: {
            host: 'localhost:3100',
            origin: 'http://localhost:3100',
            'content-type': 'application/json',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ messages: [{ role: 'user', content: 'a weekend trip' }], stream: true }));
    });
    expect(status).toBe(200);
  });

  it('a page of another site is still refused (1008), and logged at warn once, not once per connection', async () => {
    const evil = 'https://attacker.example';
    for (let i = 0; i < 3; i++) {
      const ws = await throughNatUiProxy(t, evil).connect();
      expect((await ws.closed).code).toBe(1008);
      expect(ws.received).toEqual([]);
    }
    const other = await throughNatUiProxy(t, 'https://other.example').connect();
    expect((await other.closed).code).toBe(1008);
    expect(
      log.warnings('Refused WebSocket connections from pages at Origin "https://attacker.example"'),
    ).toHaveLength(1);
    expect(
      log.warnings('Refused WebSocket connections from pages at Origin "https://other.example"'),
    ).toHaveLength(1);
  });
});
