import http from 'node:http';
import WebSocket from 'ws';
import { LogCapture, startLoggedApp } from '../utils/logged-app';
import { configFrom, ECHO_YAML, type TestApp } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

/**
 * DNS rebinding: a page at http://rebind.attacker.test:8000 whose name the attacker then points at
 * 127.0.0.1 talks to a developer's `npm start` as its own origin, with its own name in Host and
 * Origin. Only the names the server answers to are served (localhost, IP addresses, the bound
 * address, public_base_url, general.front_end.allowed_hosts), over HTTP and WebSocket alike.
 */

interface Answer {
  status: number;
  type: string | undefined;
  body: string;
}

/** A request with the Host (and other headers) a browser on that name would send. */
function request(t: TestApp, method: string, path: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(t.url);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ hostname, port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a socket with these headers: the open client, or the HTTP answer that refused the upgrade. */
function handshake(t: TestApp, headers: Record<string, string>): Promise<WsClient | Answer> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/websocket`, { headers });
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, type: res.headers['content-type'], body: text }),
      );
    });
    socket.once('open', () => {
      socket.close();
      resolve(WsClient.connect(t.url, {}, { headers }));
    });
    socket.once('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

const port = (t: TestApp) => new URL(t.url).port;
const front = (fields: string) => `general:\n  front_end:\n${fields}\n${ECHO_YAML}`;

describe("a developer's npm start (config/default.yml's front_end: bound to localhost, nothing listed)", () => {
  const log = new LogCapture();
  let t: TestApp;
  beforeAll(async () => (t = await startLoggedApp(configFrom(ECHO_YAML), log)));
  afterAll(() => t.close());

  it('a rebinding page (its own name in Host and Origin) gets 421 with a JSON detail, and runs nothing', async () => {
    const name = `rebind.attacker.test:${port(t)}`;
    const ran = await request(
      t,
      'POST',
      '/v1/workflow',
      { host: name, origin: `http://${name}`, 'content-type': 'application/json' },
      JSON.stringify({ message: 'read my files' }),
    );
    expect(ran.status).toBe(421);
    expect(ran.type).toMatch(/^application\/json/);
    expect(JSON.parse(ran.body)).toEqual({
      detail: `This server does not answer to Host "${name}" (general.front_end.allowed_hosts lists the names it serves)`,
    });
    for (const path of ['/health', '/docs', '/openapi.json', '/', '/no-such-route']) {
      expect({ path, status: (await request(t, 'GET', path, { host: name })).status }).toEqual({
        path,
        status: 421,
      });
    }
  });

  it('its WebSocket handshake is refused with the same 421, before any upgrade', async () => {
    const name = `rebind.attacker.test:${port(t)}`;
    const answer = await handshake(t, { host: name, origin: `http://${name}` });
    expect(answer).toEqual({
      status: 421,
      type: 'application/json',
      body: expect.stringContaining('allowed_hosts'),
    });
  });

  it.each([
    ['localhost', 'localhost:PORT'],
    ['a *.localhost name', 'app.localhost:PORT'],
    ['the loopback address', '127.0.0.1:PORT'],
    ['the IPv6 loopback', '[::1]:PORT'],
    ['any IP address (a rebinding page never sends one)', '10.20.30.40:PORT'],
  ])('%s is served (%s)', async (_name, host) => {
    expect((await request(t, 'GET', '/health', { host: host.replace('PORT', port(t)) })).status).toBe(200);
  });

  it.each([
    ['localhost as a prefix', 'localhost.attacker.test'],
    ['userinfo', 'user@localhost'],
  ])('%s is refused (%s)', async (_name, host) => {
    expect((await request(t, 'GET', '/health', { host })).status).toBe(421);
  });

  it('each refused name is logged at warn once, over HTTP and WebSocket together', async () => {
    const name = `logged.attacker.test:${port(t)}`;
    for (let i = 0; i < 3; i++) expect((await request(t, 'GET', '/health', { host: name })).status).toBe(421);
    expect(await handshake(t, { host: name })).toMatchObject({ status: 421 });
    expect(log.warnings(`Refused requests for Host "${name}"`)).toHaveLength(1);
  });

  it('a page of another site cannot open a socket: Origin is checked against the server’s names', async () => {
    const host = `127.0.0.1:${port(t)}`;
    const refused = (await handshake(t, { host, origin: 'http://attacker.test' })) as WsClient;
    expect(await refused.closed).toMatchObject({ code: 1008 });
    for (const origin of ['http://localhost:3100', `http://${host}`]) {
      const ws = (await handshake(t, { host, origin })) as WsClient;
      ws.send(userMessage('hi', { schema_type: 'generate' }));
      expect((await ws.run()).some((m) => m.status === 'complete')).toBe(true);
      ws.close();
    }
  });
});

describe('names listed in allowed_hosts, and public_base_url', () => {
  let t: TestApp;
  beforeAll(async () => {
    const yaml = front(
      "    allowed_hosts: [agents.example.com, .corp.example]\n    public_base_url: 'https://public.example.org'",
    );
    t = await startLoggedApp(configFrom(yaml), new LogCapture());
  });
  afterAll(() => t.close());

  it.each([
    ['a listed name, any case, with a trailing dot', 'AGENTS.example.com.'],
    ['a subdomain of a listed .domain', 'eu.corp.example'],
    ['the listed .domain itself', 'corp.example:443'],
    ["public_base_url's host", 'public.example.org'],
  ])('%s is served (%s)', async (_name, host) => {
    expect((await request(t, 'GET', '/health', { host })).status).toBe(200);
  });

  it.each([
    ['a listed name as a prefix of another', 'agents.example.com.attacker.test'],
    ['a name that only ends like a listed domain', 'notcorp.example'],
  ])('%s is refused (%s)', async (_name, host) => {
    expect((await request(t, 'GET', '/health', { host })).status).toBe(421);
  });

  it('a WebSocket Origin on a listed name is accepted, whatever Host the socket came by', async () => {
    const host = `127.0.0.1:${port(t)}`;
    for (const origin of ['http://agents.example.com:3000', 'https://eu.corp.example']) {
      const ws = (await handshake(t, { host, origin })) as WsClient;
      ws.send(userMessage('hi', { schema_type: 'generate' }));
      expect((await ws.run()).some((m) => m.status === 'complete')).toBe(true);
      ws.close();
    }
  });
});

describe('a server bound to every interface (a container reached by its service name)', () => {
  it('with no allowed_hosts serves any Host, and start-up says how to list the names', async () => {
    const log = new LogCapture();
    const t = await startLoggedApp(configFrom(front('    host: 0.0.0.0')), log);
    try {
      expect((await request(t, 'GET', '/health', { host: 'interlude:8000' })).status).toBe(200);
      // The built-in page, opened at http://interlude:8000, opens its socket from its own origin.
      const ws = await handshake(t, { host: 'interlude:8000', origin: 'http://interlude:8000' });
      expect(ws).toBeInstanceOf(WsClient);
      (ws as WsClient).close();
      expect(
        log.warnings('Listening on every interface with no general.front_end.allowed_hosts'),
      ).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('with allowed_hosts serves those names only, and says nothing at start-up', async () => {
    const log = new LogCapture();
    const t = await startLoggedApp(
      configFrom(front('    host: 0.0.0.0\n    allowed_hosts: [interlude]')),
      log,
    );
    try {
      expect((await request(t, 'GET', '/health', { host: 'interlude:8000' })).status).toBe(200);
      expect((await request(t, 'GET', '/health', { host: 'rebind.attacker.test:8000' })).status).toBe(421);
      expect(log.warnings('Listening on every interface')).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("under verified identity a page on the browser's own machine (localhost:3000) is not this server's", async () => {
    const yaml = `general:
  auth: { jwt: { secret: 'a-secret-of-at-least-thirty-two-bytes-long' } }
  front_end: { host: 0.0.0.0, allowed_hosts: [interlude] }
${ECHO_YAML}`;
    const log = new LogCapture();
    const t = await startLoggedApp(configFrom(yaml), log);
    try {
      const local = (await handshake(t, {
        host: 'interlude:8000',
        origin: 'http://localhost:3000',
      })) as WsClient;
      expect(await local.closed).toMatchObject({ code: 1008 });
      const own = (await handshake(t, {
        host: 'interlude:8000',
        origin: 'http://interlude:8000',
      })) as WsClient;
      own.close();
      expect(await own.closed).toMatchObject({ code: 1005 });
    } finally {
      await t.close();
    }
  });
});

describe('general.front_end.allowed_hosts in the config', () => {
  it.each([['http://agents.example.com'], ['agents.example.com:8000'], ['agents.example.com/path'], ['']])(
    'an entry that is not a host name (%j) stops start-up, naming the field',
    (entry) => {
      expect(() => configFrom(front(`    allowed_hosts: [${JSON.stringify(entry)}]`))).toThrow(
        /general\.front_end\.allowed_hosts: each entry must be a host name without scheme, port or path/,
      );
    },
  );
});

describe('an Origin that is not an origin (scheme://host[:port]) is never matched nor echoed', () => {
  let t: TestApp;
  beforeAll(async () => {
    const yaml = `general:
  front_end:
    cors: { allow_origin_regex: 'https://.*\\.example\\.com', allow_credentials: true }
${ECHO_YAML}`;
    t = await startLoggedApp(configFrom(yaml), new LogCapture());
  });
  afterAll(() => t.close());

  const NOT_ORIGINS = [
    ['a query naming an allowed origin', 'https://evil.test/?https://a.example.com'],
    ['a path', 'https://a.example.com/path'],
    ['a trailing slash', 'https://a.example.com/'],
    ['userinfo', 'https://evil.test@a.example.com'],
  ];

  it('an origin the pattern matches is echoed (the pattern works)', async () => {
    const res = await fetch(`${t.url}/v1/workflow`, {
      method: 'OPTIONS',
      headers: { origin: 'https://a.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://a.example.com');
  });

  it.each(NOT_ORIGINS)('over CORS, %s (%s) gets no Access-Control-Allow-Origin', async (_name, origin) => {
    for (const method of ['OPTIONS', 'GET']) {
      const res = await fetch(`${t.url}/health`, {
        method,
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it.each(NOT_ORIGINS)('over WebSocket, %s (%s) is refused with 1008', async (_name, origin) => {
    const ws = (await handshake(t, { origin })) as WsClient;
    expect(await ws.closed).toMatchObject({ code: 1008 });
    expect(ws.received).toEqual([]);
  });
});
