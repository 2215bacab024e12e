import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml } from '../utils/test-app';

const WORKFLOW = scriptedYaml(
  `- step: { name: search_destinations, kind: tool, payload: { results: [Lisbon] } }
- prompt: { input_type: text, text: 'Your name?', save_as: name }
- step: { name: weather_lookup, kind: tool, payload: { forecast: sunny } }
- prompt: { input_type: text, text: 'Your city?', save_as: city }`,
  '{{name}} from {{city}}',
);
const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };

/** A resumed stream as a raw GET: what a replica answers to this `Last-Event-ID` in this session. */
async function resume(url: string, sessionId: string, lastEventId: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/mcp`, {
    headers: {
      ...headers,
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
  });
  return { status: res.status, body: await res.text() };
}

/**
 * Two `interlude serve` processes on one PostgreSQL and one Redis. A client's call runs on replica A;
 * its connection drops (a proxy cuts it) and the SDK resumes the call's stream with `Last-Event-ID`,
 * which the balancer sends to replica B: B replays what the client missed from Redis and goes on
 * with what A sends later, up to the call's result.
 */
requires('postgres')('MCP server face: a call resumed on another replica', () => {
  requires('redis')('with the shared store', () => {
    let set: ReplicaProcesses;
    let toA: TcpProxy;
    beforeAll(async () => {
      set = await ReplicaProcesses.start(2, WORKFLOW);
      toA = await TcpProxy.start('127.0.0.1', Number(new URL(set.url(0)).port));
    }, 120_000);
    afterAll(async () => {
      await toA?.close();
      await set?.close();
    });

    /**
     * A client behind a balancer: `tools/call` goes to A through the proxy, a resumed stream to B,
     * everything else round-robin. `seen` is each request as `<kind> <replica>`.
     */
    async function balancedClient() {
      const seen: string[] = [];
      let turn = 0;
      const transport = new StreamableHTTPClientTransport(new URL(`${set.url(0)}/mcp`), {
        requestInit: { headers: ALICE },
        reconnectionOptions: {
          // Long enough for A to send the rest of the step and the next question meanwhile.
          initialReconnectionDelay: 1500,
          maxReconnectionDelay: 3000,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 5,
        },
        fetch: (url, init) => {
          const lastEventId = new Headers(init?.headers).get('last-event-id');
          const body = JSON.parse(String(init?.body ?? '{}')) as { method?: string; result?: unknown };
          const target = new URL(String(url));
          if (body.method === 'tools/call') {
            target.port = String(toA.port);
            seen.push('tools/call A');
          } else {
            const to = lastEventId ? 1 : turn++ % 2;
            target.port = new URL(set.url(to)).port;
            const kind = lastEventId
              ? 'resume'
              : init?.method === 'GET'
                ? 'stream'
                : (body.method ?? 'answer');
            seen.push(`${kind} ${'AB'[to]}`);
          }
          return fetch(target, init);
        },
      });
      const client = new Client(
        { name: 'balanced', version: '1' },
        { capabilities: { elicitation: { form: {} } } },
      );
      await client.connect(transport);
      return { client, transport, seen };
    }

    it('the stream cut on A resumes on B: the missed progress and question in order, then the result', async () => {
      const { client, transport, seen } = await balancedClient();
      const timeline: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
        timeline.push(`asked ${params.message}`);
        if (params.message === 'Your name?') {
          // The connection to A drops while the person types: the call's stream is gone with it.
          toA.cut();
          await new Promise((resolve) => setTimeout(resolve, 200));
          return { action: 'accept', content: { text: 'Ana' } };
        }
        return { action: 'accept', content: { text: 'Porto' } };
      });
      try {
        const result = (await client.callTool(
          { name: 'scripted', arguments: { input_message: 'Plan a trip' } },
          undefined,
          { onprogress: (p) => timeline.push(`progress ${p.progress} ${p.message}`), timeout: 60_000 },
        )) as CallToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([{ type: 'text', text: 'Ana from Porto' }]);
        expect(timeline).toEqual([
          'progress 1 TOOL_START search_destinations',
          'progress 2 TOOL_END search_destinations',
          'asked Your name?',
          // Sent by A while the client had no stream: replayed by B, in order, once each.
          'progress 3 TOOL_START weather_lookup',
          'progress 4 TOOL_END weather_lookup',
          'asked Your city?',
        ]);
        expect(seen).toContain('tools/call A');
        expect(seen).toContain('resume B');
        // The call ran on A alone: no other tools/call was sent.
        expect(seen.filter((s) => s.startsWith('tools/call'))).toHaveLength(1);
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    }, 90_000);

    it('a Last-Event-ID works only in its own session, for the identity that opened it', async () => {
      const first = await balancedClient();
      const other = await balancedClient();
      first.client.setRequestHandler(ElicitRequestSchema, ({ params }) => ({
        action: 'accept',
        content: { text: params.message === 'Your name?' ? 'Ana' : 'Porto' },
      }));
      try {
        const tokens: string[] = [];
        await first.client.callTool({ name: 'scripted', arguments: { input_message: 'go' } }, undefined, {
          onresumptiontoken: (token) => tokens.push(token),
        });
        const [token] = tokens;
        expect(token).toBeDefined();
        const session = first.transport.sessionId!;
        for (const i of [0, 1]) {
          // Its own session, on either replica: what followed the token, up to the result.
          const own = await resume(set.url(i), session, token, ALICE);
          expect(own.status).toBe(200);
          expect(own.body).toContain('Ana from Porto');
          // The same id in another session of the same person: unknown there.
          const elsewhere = await resume(set.url(i), other.transport.sessionId!, token, ALICE);
          expect(elsewhere.status).toBe(400);
          expect(elsewhere.body).not.toContain('Ana');
          // Another identity naming the session: the session does not exist for it.
          const bob = await resume(set.url(i), session, token, BOB);
          expect(bob.status).toBe(404);
          expect(bob.body).not.toContain('Ana');
          // A forged id (another key's name) finds nothing either.
          const forged = await resume(set.url(i), session, `${token.split('_')[0]}:x_1-0`, ALICE);
          expect(forged.status).toBe(400);
        }
      } finally {
        await first.client.close();
        await other.client.close();
      }
    }, 90_000);
  });
});
