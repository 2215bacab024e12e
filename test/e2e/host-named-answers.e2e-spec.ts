import http from 'node:http';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

/**
 * Answers that name this server's URLs (the A2A agent card, MCP's protected resource metadata and its
 * 401 challenge) take them from `public_base_url`, else from the request's Host. Served on any Host,
 * such an answer says it varies by Host, so a shared cache never hands one name's answer to another's
 * callers (a card pointing them at `attacker.test`).
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request by another name (`Host`), as a cache in front of the server would pass it on. */
function asked(t: TestApp, method: string, path: string, host: string): Promise<Answer> {
  const { hostname, port } = new URL(t.url);
  const headers = { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined);
  });
}

const varies = (answer: Answer) => (answer.headers.vary ?? '').split(/,\s*/).map((v) => v.toLowerCase());

const JWT = `auth:\n    jwt: { secret: 'a-shared-secret-of-at-least-32-bytes!!' }`;

describe('answers naming the request’s Host, on a server that serves any Host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(`general:\n  front_end: { allowed_hosts: ['*'] }\n  ${JWT}\n${ECHO_YAML}`);
  });
  afterAll(() => t.close());

  it('the agent card names the Host it was asked by, and varies by Host', async () => {
    const card = await asked(t, 'GET', '/.well-known/agent-card.json', 'attacker.test');
    expect(card.status).toBe(200);
    expect(JSON.parse(card.body).supportedInterfaces[0].url).toBe('http://attacker.test/a2a');
    expect(varies(card)).toContain('host');
  });

  it('MCP’s protected resource metadata and its 401 challenge vary by Host', async () => {
    const metadata = await asked(t, 'GET', '/.well-known/oauth-protected-resource', 'attacker.test');
    expect(JSON.parse(metadata.body).resource).toBe('http://attacker.test/mcp');
    expect(varies(metadata)).toContain('host');
    const challenge = await asked(t, 'POST', '/mcp', 'attacker.test');
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toContain('http://attacker.test/');
    expect(varies(challenge)).toContain('host');
  });
});

describe('answers naming public_base_url', () => {
  it('the agent card names public_base_url whatever the Host, and does not vary by it', async () => {
    const t = await startApp(
      `general:\n  front_end: { allowed_hosts: ['*'], public_base_url: 'https://agents.example.com' }\n${ECHO_YAML}`,
    );
    try {
      const card = await asked(t, 'GET', '/.well-known/agent-card.json', 'attacker.test');
      expect(JSON.parse(card.body).supportedInterfaces[0].url).toBe('https://agents.example.com/a2a');
      expect(varies(card)).not.toContain('host');
    } finally {
      await t.close();
    }
  });
});
