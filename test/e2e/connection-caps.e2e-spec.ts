import WebSocket from 'ws';
import { openStream, type LiveStream } from '../utils/live-sse';
import { postJson } from '../utils/sse';
import { LogCapture, startLoggedApp } from '../utils/logged-app';
import { configFrom, eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { WsClient } from '../utils/ws-client';

const WAITING = scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hi {{name}}');

function capped(frontEnd: string) {
  return WAITING.replace('workflow:', () => `general:\n  front_end:\n${frontEnd}\nworkflow:`);
}

async function startStream(t: TestApp, headers: Record<string, string> = {}): Promise<LiveStream> {
  return openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'x' }, headers });
}

describe('per-address caps on open streams and sockets', () => {
  let t: TestApp;
  const opened: LiveStream[] = [];
  beforeAll(
    async () =>
      (t = await startApp(
        capped(
          '    max_streams_per_address: 2\n    max_reattached_streams_per_execution: 1\n    websocket_max_connections_per_address: 2',
        ),
      )),
  );
  afterEach(async () => {
    for (const s of opened.splice(0)) s.destroy();
  });
  afterAll(() => t.close());

  it('a third open stream from one address is 429 with Retry-After; closing one makes room', async () => {
    opened.push(await startStream(t), await startStream(t));
    for (const s of opened) expect(s.status).toBe(200);
    const refused = await postJson(
      `${t.url}/v1/workflow/stream`,
      { input_message: 'x' },
      { 'x-forwarded-for': '10.9.9.9' },
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(refused.json).toEqual({ detail: expect.stringMatching(/max_streams_per_address/) });
    const completion = await postJson(`${t.url}/v1/chat/completions`, {
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(completion.status).toBe(429);
    expect(completion.json).toMatchObject({ error: { type: 'rate_limit_error' } });
    opened.shift()!.destroy();
    await eventually(async () => {
      const again = await startStream(t);
      opened.push(again);
      expect(again.status).toBe(200);
    });
  });

  it('a second re-attached stream of one execution is 429 (cap 1)', async () => {
    const first = await startStream(t);
    opened.push(first);
    const frame = await first.next((f) => f.event === 'interaction_required');
    const { execution_id: id } = JSON.parse(frame.data!) as { execution_id: string };
    first.destroy();
    const reattach = () => openStream(`${t.url}/executions/${id}/stream`);
    await eventually(async () => {
      const s = await reattach();
      opened.push(s);
      expect(s.status).toBe(200);
    });
    const refused = await reattach();
    opened.push(refused);
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.end().then(() => refused.text))).toEqual({
      detail: expect.stringMatching(/max_reattached_streams_per_execution/),
    });
  });

  it('a third WebSocket from one address is refused at the handshake with 429', async () => {
    const a = await WsClient.connect(t.url);
    const b = await WsClient.connect(t.url);
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/websocket');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => reject(new Error('the third socket was accepted')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(429);
    a.socket.close();
    await a.closed;
    await eventually(async () => {
      const c = await WsClient.connect(t.url);
      c.socket.close();
    });
    b.socket.close();
  });
});

describe('trust_proxy', () => {
  it('when the proxy is trusted, X-Forwarded-For names the address each cap counts', async () => {
    const t = await startApp(capped("    max_streams_per_address: 1\n    trust_proxy: ['loopback']"));
    const opened: LiveStream[] = [];
    try {
      opened.push(await startStream(t, { 'x-forwarded-for': '203.0.113.1' }));
      opened.push(await startStream(t, { 'x-forwarded-for': '203.0.113.2' }));
      expect(opened.map((s) => s.status)).toEqual([200, 200]);
      const refused = await postJson(
        `${t.url}/v1/workflow/stream`,
        { input_message: 'x' },
        { 'x-forwarded-for': '203.0.113.1' },
      );
      expect(refused.status).toBe(429);
    } finally {
      for (const s of opened) s.destroy();
      await t.close();
    }
  });
});

describe('X-Forwarded-For from a peer trust_proxy does not name', () => {
  const forwarded = { 'x-forwarded-for': '203.0.113.9' };
  const UNTRUSTED =
    'X-Forwarded-For from 127.0.0.1 ignored: general.front_end.trust_proxy does not name that peer';

  it('is ignored, and said once at warn (HTTP and WebSocket together), naming trust_proxy', async () => {
    const log = new LogCapture();
    const t = await startLoggedApp(configFrom(capped('    max_streams_per_address: 100')), log);
    try {
      expect((await fetch(`${t.url}/health`, { headers: forwarded })).status).toBe(200);
      expect((await fetch(`${t.url}/health`, { headers: forwarded })).status).toBe(200);
      const ws = await WsClient.connect(t.url, {}, { headers: forwarded });
      ws.close();
      await ws.closed;
      expect(log.warnings(UNTRUSTED)).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('says nothing when the peer is trusted, or when no proxy header comes', async () => {
    const log = new LogCapture();
    const t = await startLoggedApp(configFrom(capped("    trust_proxy: ['loopback']")), log);
    try {
      expect((await fetch(`${t.url}/health`, { headers: forwarded })).status).toBe(200);
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
      expect(log.warnings('X-Forwarded-For')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
