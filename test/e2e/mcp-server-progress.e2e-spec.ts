import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { Executions } from '../utils/hitl';
import { mcpClient } from '../utils/mcp-client';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const STEPS = `- step: { name: search_destinations, kind: tool, payload: { results: [Lisbon] } }
- step: { name: weather_lookup, kind: tool, payload: { forecast: sunny } }`;

describe('MCP server face: progress and cancel', () => {
  let t: TestApp;
  let waiting: TestApp;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Done'));
    waiting = await startApp(scriptedYaml(`- prompt: { input_type: text, text: 'Name?' }`, 'Done'));
  });
  afterAll(async () => {
    await t.close();
    await waiting.close();
  });

  it('reports intermediate steps as notifications/progress when the client sent a progressToken', async () => {
    const mcp = await mcpClient(t.url);
    try {
      const seen: Progress[] = [];
      const result = (await mcp.client.callTool(
        { name: 'scripted', arguments: { input_message: 'go' } },
        undefined,
        { onprogress: (p) => seen.push(p) },
      )) as CallToolResult;
      expect((result.content[0] as { text: string }).text).toBe('Done');
      expect(seen.map((p) => p.message)).toEqual([
        'TOOL_START search_destinations',
        'TOOL_END search_destinations',
        'TOOL_START weather_lookup',
        'TOOL_END weather_lookup',
      ]);
      expect(seen.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    } finally {
      await mcp.close();
    }
  });

  it('cancels the execution when the client aborts the call (notifications/cancelled)', async () => {
    const mcp = await mcpClient(waiting.url, { capabilities: { elicitation: { form: {} } } });
    try {
      const abort = new AbortController();
      let responseUrl = '';
      mcp.client.setRequestHandler(ElicitRequestSchema, (request) => {
        responseUrl = request.params._meta?.['interlude/response_url'] as string;
        abort.abort('the user pressed stop');
        return new Promise<ElicitResult>(() => {});
      });
      const called = mcp.client.callTool(
        { name: 'scripted', arguments: { input_message: 'go' } },
        undefined,
        {
          signal: abort.signal,
        },
      );
      await expect(called).rejects.toThrow(/stop/);
      const statusUrl = responseUrl.replace(/\/interactions\/.*$/, '');
      const ended = await new Executions(waiting.url).ended(statusUrl.split('/').pop()!);
      expect(ended).toMatchObject({ status: 'failed', error: 'Execution cancelled' });
    } finally {
      await mcp.close();
    }
  });
});
