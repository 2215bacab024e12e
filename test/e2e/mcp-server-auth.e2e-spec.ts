import { SignJWT } from 'jose';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient } from '../utils/mcp-client';
import { startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ISSUER = 'https://id.example.com';

function token(sub: string): Promise<string> {
  return new SignJWT({ sub })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
}

function initialize(url: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

describe.each([false, true])('MCP server face under verified identity (require_identity: %s)', (required) => {
  let t: TestApp;
  beforeAll(async () => {
    const yaml = `general:\n  auth:\n    require_identity: ${required}\n    jwt: { secret: '${SECRET}', issuer: ${ISSUER} }\nworkflow: { _type: whoami }\n`;
    t = await startApp(yaml, whoamiRegistry());
  });
  afterAll(() => t.close());

  it('answers a request without a credential 401 naming its protected resource metadata', async () => {
    const res = await initialize(t.url);
    expect(res.status).toBe(401);
    const metadataUrl = `${t.url}/.well-known/oauth-protected-resource`;
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
  });

  it('serves a caller with a verified bearer token, as that identity', async () => {
    const mcp = await mcpClient(t.url, { headers: { authorization: `Bearer ${await token('ana')}` } });
    try {
      const result = (await mcp.client.callTool({
        name: 'whoami',
        arguments: { input_message: 'x' },
      })) as CallToolResult;
      const { identity } = result.structuredContent as { identity: { source: string; verified: boolean } };
      expect(identity).toMatchObject({ source: 'jwt', verified: true });
    } finally {
      await mcp.close();
    }
  });

  it("answers 404 to another user's session id", async () => {
    const ana = await mcpClient(t.url, { headers: { authorization: `Bearer ${await token('ana')}` } });
    try {
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${await token('bob')}`,
          'mcp-session-id': ana.transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(res.status).toBe(404);
    } finally {
      await ana.close();
    }
  });
});

describe('MCP server face: RFC 9728 protected resource metadata', () => {
  it('names the resource and the configured JWT issuer', async () => {
    const yaml = `general:\n  auth:\n    jwt: { secret: '${SECRET}', issuer: ${ISSUER} }\nworkflow: { _type: whoami }\n`;
    const t = await startApp(yaml, whoamiRegistry());
    try {
      const metadataUrl = `${t.url}/.well-known/oauth-protected-resource`;
      const metadata = await fetch(metadataUrl);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toEqual({
        resource: `${t.url}/mcp`,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ['header'],
        resource_name: 'Interlude',
      });
    } finally {
      await t.close();
    }
  });
});
