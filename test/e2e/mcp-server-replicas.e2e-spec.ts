import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SharedSessions } from '../../src/mcp-server/shared-sessions';
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { scriptedYaml } from '../utils/test-app';

const WORKFLOW = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', save_as: name }`,
  'Hello {{name}}',
);
const ALICE = { cookie: 'nat-session=alice' };

type Kind = 'initialize' | 'tools/call' | 'tools/list' | 'answer' | 'stream' | 'end' | 'other';

/** What a client request is, from its method and JSON-RPC body. */
function kindOf(init: RequestInit | undefined): Kind {
  if (init?.method === 'GET') return 'stream';
  if (init?.method === 'DELETE') return 'end';
  const body = JSON.parse(String(init?.body ?? '{}')) as { method?: string; result?: unknown };
  if (body.method === 'initialize' || body.method === 'tools/call' || body.method === 'tools/list') {
    return body.method;
  }
  return body.result !== undefined ? 'answer' : 'other';
}

/**
 * Two replicas on one PostgreSQL and one Redis behind a balancer that sends each request of one MCP
 * session wherever `route` says: the session, its calls and its elicitations' answers work on either.
 */
requires('postgres')('MCP server face across replicas', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    beforeAll(async () => (replicas = await startReplicas(2, WORKFLOW)), 60_000);
    afterAll(() => replicas?.close());

    async function balancedClient(route: (kind: Kind) => 0 | 1) {
      const seen: [Kind, number][] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${replicas.apps[0].url}/mcp`), {
        requestInit: { headers: ALICE },
        fetch: (url, init) => {
          const kind = kindOf(init);
          const to = route(kind);
          seen.push([kind, to]);
          const target = new URL(String(url));
          target.port = new URL(replicas.apps[to].url).port;
          return fetch(target, init);
        },
      });
      const client = new Client(
        { name: 'balanced', version: '1' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, ({ params }) => ({
        action: 'accept',
        content: { text: params.message === 'Your name?' ? 'Ana' : '?' },
      }));
      await client.connect(transport);
      return { client, transport, seen };
    }

    const call = (client: Client) =>
      client.callTool({ name: 'scripted', arguments: { input_message: 'hi' } }) as Promise<CallToolResult>;

    it('a call on the replica that opened the session, its elicitation answered through the other one', async () => {
      const { client, seen } = await balancedClient((kind) =>
        kind === 'answer' || kind === 'tools/list' ? 1 : 0,
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('scripted');
        const result = await call(client);
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([{ type: 'text', text: 'Hello Ana' }]);
        expect(seen).toContainEqual(['tools/list', 1]);
        expect(seen).toContainEqual(['answer', 1]);
        expect(seen).toContainEqual(['tools/call', 0]);
      } finally {
        await client.close();
      }
    }, 60_000);

    it('a call on the other replica (it opens its copy of the session), answered through the first; DELETE there ends it on both', async () => {
      const { client, transport, seen } = await balancedClient((kind) =>
        kind === 'tools/call' || kind === 'end' ? 1 : 0,
      );
      try {
        const result = await call(client);
        expect(result.content).toEqual([{ type: 'text', text: 'Hello Ana' }]);
        expect(seen).toContainEqual(['tools/call', 1]);
        expect(seen).toContainEqual(['answer', 0]);
        const sessionId = transport.sessionId!;
        await transport.terminateSession();
        expect(seen).toContainEqual(['end', 1]);
        // The replica that opened it forgets it too.
        const res = await fetch(`${replicas.apps[0].url}/mcp`, {
          method: 'POST',
          headers: {
            ...ALICE,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
        });
        expect(res.status).toBe(404);
      } finally {
        await client.close();
      }
    }, 60_000);

    it('every request after initialize on the other replica, even when Redis is slow to record the session', async () => {
      // The first replica's Redis write of the new session takes 300 ms: the initialize answer waits.
      const shared = replicas.apps[0].app.get(SharedSessions);
      const save = shared.save.bind(shared);
      shared.save = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return save(...args);
      };
      try {
        const { client, seen } = await balancedClient((kind) => (kind === 'initialize' ? 0 : 1));
        try {
          const result = await call(client);
          expect(result.content).toEqual([{ type: 'text', text: 'Hello Ana' }]);
          expect(seen.map(([kind, to]) => `${kind} ${to}`)).toEqual(
            expect.arrayContaining(['initialize 0', 'other 1', 'tools/call 1', 'answer 1']),
          );
        } finally {
          await client.close();
        }
      } finally {
        shared.save = save;
      }
    }, 60_000);

    it('another identity cannot use the session on either replica', async () => {
      const { client, transport } = await balancedClient(() => 0);
      try {
        for (const app of replicas.apps) {
          const res = await fetch(`${app.url}/mcp`, {
            method: 'POST',
            headers: {
              cookie: 'nat-session=bob',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-session-id': transport.sessionId!,
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
          });
          expect(res.status).toBe(404);
        }
      } finally {
        await client.close();
      }
    }, 60_000);
  });
});
