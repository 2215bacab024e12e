import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const TWO_QUESTIONS = `- prompt: { input_type: text, text: 'Your name?', save_as: name }
- prompt: { input_type: text, text: 'Your city?', save_as: city }`;

/**
 * A client whose connection drops while the workflow waits for a person (a proxy cuts every open
 * connection): the SDK resumes the call's stream with `Last-Event-ID` and gets what was sent meanwhile.
 */
describe('MCP server face: a call resumes its stream with Last-Event-ID', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(TWO_QUESTIONS, '{{name}} from {{city}}'));
    proxy = await TcpProxy.start('127.0.0.1', Number(new URL(t.url).port));
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  it('the stream dropped mid-elicitation: the next question and the result arrive on the resumed stream', async () => {
    const resumedFrom: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${proxy.port}/mcp`), {
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 20,
      },
      fetch: (url, init) => {
        const lastEventId = new Headers(init?.headers).get('last-event-id');
        if (lastEventId) resumedFrom.push(lastEventId);
        return fetch(url, init);
      },
    });
    const client = new Client(
      { name: 'resuming', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
      asked.push(params.message);
      if (params.message === 'Your name?') {
        // The connection drops while the person types: the call's stream is gone with it.
        proxy.cut();
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { action: 'accept', content: { text: 'Ana' } };
      }
      return { action: 'accept', content: { text: 'Porto' } };
    });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: 'scripted',
        arguments: { input_message: 'Plan a trip' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'Ana from Porto' }]);
      // The second question was sent while no stream was open: it came on the resumed one.
      expect(asked).toEqual(['Your name?', 'Your city?']);
      expect(resumedFrom.length).toBeGreaterThan(0);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  }, 30_000);
});
