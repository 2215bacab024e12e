import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { Executions } from '../utils/hitl';
import { mcpClient, type McpConnection } from '../utils/mcp-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const EVERY_TYPE = `- prompt: { input_type: notification, text: 'Starting the trip planner' }
- prompt: { input_type: text, text: 'Your name?', placeholder: 'A name', save_as: name }
- prompt: { input_type: binary_choice, text: 'Go on?', options: [{ id: y, label: Yes, value: yes }, { id: n, label: No, value: no }], save_as: go }
- prompt: { input_type: radio, text: 'City?', options: [{ id: lis, label: Lisbon, value: lisbon }, { id: opo, label: Porto, value: porto }], save_as: city }
- prompt: { input_type: dropdown, text: 'Month?', options: [{ id: may, label: May, value: may }, { id: jun, label: June, value: june }], save_as: month }
- prompt: { input_type: checkbox, text: 'Extras?', options: [{ id: car, label: Car, value: car }, { id: spa, label: Spa, value: spa }], save_as: extras }`;
const EVERY_OUTPUT = '{{name}}|{{go.id}}|{{city.id}}|{{month.id}}|{{extras.id}}';

const ASK_NAME = `- prompt: { input_type: text, text: 'Your name?', save_as: name }`;
const ASK_NAME_CANCELLABLE = `- prompt: { input_type: text, text: 'Your name?', allow_cancel: true, save_as: name }`;

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
type Params = ElicitRequest['params'];

/** A client that declares form elicitation and answers each one with `answer`, recording what it was asked. */
async function elicitingClient(
  url: string,
  answer: (params: Params) => ElicitResult | Promise<ElicitResult>,
): Promise<McpConnection & { asked: Params[]; signals: AbortSignal[] }> {
  const mcp = await mcpClient(url, { capabilities: { elicitation: { form: {} } } });
  const asked: Params[] = [];
  const signals: AbortSignal[] = [];
  mcp.client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    asked.push(request.params);
    signals.push(extra.signal);
    return answer(request.params);
  });
  return Object.assign(mcp, { asked, signals });
}

async function withApp(yaml: string, run: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await startApp(yaml);
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

const call = (mcp: McpConnection, message = 'Plan a trip') =>
  mcp.client.callTool({ name: 'scripted', arguments: { input_message: message } }) as Promise<CallToolResult>;

describe('MCP server face: a prompt becomes an elicitation', () => {
  it('asks every prompt type with its schema and hands the answers to the workflow', async () => {
    await withApp(scriptedYaml(EVERY_TYPE, EVERY_OUTPUT), async (t) => {
      const answers: Record<string, ElicitResult['content']> = {
        'Starting the trip planner': {},
        'Your name?': { text: 'Ana' },
        'Go on?': { approved: true },
        'City?': { selected_option: 'opo' },
        'Month?': { selected_option: 'jun' },
        'Extras?': { selected_options: ['car', 'spa'] },
      };
      const mcp = await elicitingClient(t.url, (p) => ({ action: 'accept', content: answers[p.message] }));
      try {
        const result = await call(mcp);
        expect(result.isError).toBeFalsy();
        expect(text(result)).toBe('Ana|y|opo|jun|car, spa');
        const schemas = Object.fromEntries(
          mcp.asked.map((p) => [p.message, 'requestedSchema' in p ? p.requestedSchema : p.url]),
        );
        expect(schemas).toEqual({
          'Starting the trip planner': { type: 'object', properties: {} },
          'Your name?': {
            type: 'object',
            properties: { text: { type: 'string', title: 'A name', minLength: 1 } },
            required: ['text'],
          },
          'Go on?': {
            type: 'object',
            properties: {
              approved: { type: 'boolean', title: 'Yes', description: 'Checked: Yes; unchecked: No' },
            },
            required: ['approved'],
          },
          'City?': {
            type: 'object',
            properties: {
              selected_option: {
                type: 'string',
                title: 'Choose one',
                oneOf: [
                  { const: 'lis', title: 'Lisbon' },
                  { const: 'opo', title: 'Porto' },
                ],
              },
            },
            required: ['selected_option'],
          },
          'Month?': expect.objectContaining({ required: ['selected_option'] }),
          'Extras?': {
            type: 'object',
            properties: {
              selected_options: {
                type: 'array',
                title: 'Choose any',
                items: {
                  anyOf: [
                    { const: 'car', title: 'Car' },
                    { const: 'spa', title: 'Spa' },
                  ],
                },
                minItems: 1,
              },
            },
            required: ['selected_options'],
          },
        });
        expect(mcp.asked.every((p) => p.mode === 'form')).toBe(true);
      } finally {
        await mcp.close();
      }
    });
  });

  it.each(['decline', 'cancel'] as const)(
    '%s cancels the execution when the prompt cannot be cancelled',
    async (action) => {
      await withApp(scriptedYaml(ASK_NAME, 'Hello {{name}}'), async (t) => {
        const mcp = await elicitingClient(t.url, () => ({ action }));
        try {
          const result = await call(mcp);
          expect(result.isError).toBe(true);
          expect(text(result)).toMatch(
            new RegExp(`^Execution cancelled \\(the person chose ${action} on prompt `),
          );
        } finally {
          await mcp.close();
        }
      });
    },
  );

  it.each(['decline', 'cancel'] as const)(
    "%s answers a prompt that allows it with NAT's cancel, and the workflow goes on",
    async (action) => {
      await withApp(scriptedYaml(ASK_NAME_CANCELLABLE, 'Hello {{name}}'), async (t) => {
        const mcp = await elicitingClient(t.url, () => ({ action }));
        try {
          // The scripted workflow ends a run whose prompt was cancelled with this answer.
          const result = await call(mcp);
          expect(result.isError).toBeFalsy();
          expect(text(result)).toBe('Cancelled.');
        } finally {
          await mcp.close();
        }
      });
    },
  );

  it('withdraws the elicitation when the prompt is answered over HTTP first', async () => {
    // The SDK's client ignores notifications/cancelled for request id 0 (a falsy-id check), so the
    // withdrawn form is the session's second request: a notification is shown first.
    const steps = `- prompt: { input_type: notification, text: 'Hi' }\n${ASK_NAME}`;
    await withApp(scriptedYaml(steps, 'Hello {{name}}'), async (t) => {
      const mcp = await elicitingClient(t.url, (p) =>
        p.message === 'Hi' ? { action: 'accept', content: {} } : new Promise<ElicitResult>(() => {}),
      );
      try {
        const result = call(mcp);
        const asked = await eventually(() => {
          expect(mcp.asked).toHaveLength(2);
          return mcp.asked[1];
        });
        const responseUrl = asked._meta?.['interlude/response_url'] as string;
        expect(responseUrl).toMatch(/^\/executions\/[^/]+\/interactions\/[^/]+\/response$/);
        const answered = await new Executions(t.url).answer(responseUrl, { type: 'text', text: 'Bea' });
        expect(answered.status).toBe(204);
        expect(text(await result)).toBe('Hello Bea');
        // notifications/cancelled withdrew the form the client was showing.
        await eventually(() => expect(mcp.signals[1].aborted).toBe(true));
      } finally {
        await mcp.close();
      }
    });
  });
});

describe('MCP server face: a client without elicitation', () => {
  it('gets isError naming the response_url, and the prompt is answered over HTTP', async () => {
    await withApp(scriptedYaml(ASK_NAME, 'Hello {{name}}'), async (t) => {
      const mcp = await mcpClient(t.url);
      try {
        const result = await call(mcp);
        expect(result.isError).toBe(true);
        const pause = result.structuredContent as {
          execution_id: string;
          response_url: string;
          status: string;
        };
        expect(pause.status).toBe('interaction_required');
        expect(pause.response_url).toMatch(
          new RegExp(`^/executions/${pause.execution_id}/interactions/[^/]+/response$`),
        );
        expect(text(result)).toContain(`POST ${pause.response_url}`);
        const executions = new Executions(t.url);
        expect((await executions.answer(pause.response_url, { type: 'text', text: 'Cy' })).status).toBe(204);
        const ended = await executions.ended(pause.execution_id);
        expect(ended).toMatchObject({ status: 'completed' });
        expect(JSON.stringify(ended)).toContain('Hello Cy');
      } finally {
        await mcp.close();
      }
    });
  });
});
