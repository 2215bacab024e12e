import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { DEFAULT_PROMPT_ERROR, Executions, type Pause } from '../utils/hitl';
import { FakeLlm, reply, type Reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { openStream } from '../utils/live-sse';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

/** The API the guarded tool changes: records each POST and answers 201 with a ticket id. */
async function startTicketApi(): Promise<{ url: string; created: unknown[]; close: () => Promise<void> }> {
  const created: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      created.push({ method: req.method, path: req.url, body: JSON.parse(raw || 'null') as unknown });
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: created.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    created,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const CONFIRM = { id: 'yes', label: 'Yes', value: 'yes' };
const REJECT = { id: 'no', label: 'No', value: 'no' };
const FEEDBACK = { id: 'no_with_feedback', label: 'No — tell me what to change', value: 'no_with_feedback' };
const ASK = reply.tools([
  {
    name: 'ask_confirmation',
    arguments: { question: 'Create ticket "Printer jam"?', target_tool: 'create_ticket' },
  },
]);
const CREATE = reply.tools([{ name: 'create_ticket', arguments: { body: { title: 'Printer jam' } } }]);

/** The InteractionResponse the model read in its n-th request (the last tool message). */
function toolResult(llm: FakeLlm, n: number): Record<string, unknown> {
  const message = llm.lastMessage(n);
  expect(message.role).toBe('tool');
  return JSON.parse(message.content!) as Record<string, unknown>;
}

describe('ask_confirmation and ask_question pause the agent for a person', () => {
  let llm: FakeLlm;
  let api: Awaited<ReturnType<typeof startTicketApi>>;
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    api = await startTicketApi();
    const functions = {
      ask_confirmation: { _type: 'ask_confirmation' },
      ask_question: { _type: 'ask_question' },
      create_ticket: {
        _type: 'http_request',
        method: 'POST',
        url: `${api.url}/tickets`,
        description: 'Creates a ticket',
      },
    };
    const tools = Object.keys(functions);
    const general = { general: { outbound: { allow_hosts: ['127.0.0.1'] } } };
    t = await startApp(
      agentYaml(llm, { _type: 'tool_calling_agent', tool_names: tools }, functions, {}, general),
    );
    ex = new Executions(t.url);
  });
  afterEach(() => {
    expect(llm.pending).toBe(0);
    llm.reset();
    api.created.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
    await api.close();
  });

  /** Starts a run on /v1/workflow with the scripted replies; it must pause (202). */
  async function pausedRun(...replies: Reply[]): Promise<Pause> {
    llm.script(...replies);
    const res = await postJson(`${t.url}/v1/workflow`, {
      input_message: 'File a ticket about the printer jam',
    });
    expect(res.status).toBe(202);
    return res.json as unknown as Pause;
  }

  async function answer(pause: Pause, response: unknown): Promise<Record<string, unknown>> {
    expect((await ex.answer(pause.response_url, response)).status).toBe(204);
    return ex.ended(pause.execution_id);
  }

  it('asks with a radio prompt of the three fixed options, free text and cancel allowed; yes runs the tool', async () => {
    const pause = await pausedRun(ASK, CREATE, reply.text('Created ticket 1.'));
    expect(pause.prompt).toEqual({
      input_type: 'radio',
      text: 'Create ticket "Printer jam"?',
      options: [CONFIRM, REJECT, FEEDBACK],
      required: true,
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
      allow_free_text: true,
      allow_cancel: true,
    });
    expect(llm.requests).toHaveLength(1);
    expect(api.created).toEqual([]);

    const end = await answer(pause, { type: 'radio', selected_option: CONFIRM });
    expect(end).toMatchObject({ status: 'completed', result: { value: 'Created ticket 1.' } });
    expect(toolResult(llm, 1)).toEqual({
      interaction_id: pause.interaction_id,
      selected_option_id: 'yes',
      free_text: null,
      confirmed: true,
      cancelled: false,
    });
    expect(api.created).toEqual([{ method: 'POST', path: '/tickets', body: { title: 'Printer jam' } }]);
    expect(toolResult(llm, 2)).toEqual({ status: 201, body: { id: 1 } });
  });

  it('no: the model reads confirmed false and the tool does not run', async () => {
    const pause = await pausedRun(ASK, reply.text('All right, no ticket.'));
    const end = await answer(pause, { type: 'radio', selected_option: REJECT });
    expect(end).toMatchObject({ status: 'completed', result: { value: 'All right, no ticket.' } });
    expect(toolResult(llm, 1)).toMatchObject({ selected_option_id: 'no', free_text: null, confirmed: false });
    expect(api.created).toEqual([]);
  });

  it('no_with_feedback brings the feedback text to the model', async () => {
    const pause = await pausedRun(ASK, reply.text('I will call it "Printer on fire".'));
    await answer(pause, { type: 'radio', selected_option: FEEDBACK, text: 'Title it "Printer on fire"' });
    expect(toolResult(llm, 1)).toEqual({
      interaction_id: pause.interaction_id,
      selected_option_id: 'no_with_feedback',
      free_text: 'Title it "Printer on fire"',
      confirmed: false,
      cancelled: false,
    });
    expect(api.created).toEqual([]);
  });

  it('text alone on a confirmation means no_with_feedback', async () => {
    const pause = await pausedRun(ASK, reply.text('Noted.'));
    await answer(pause, { type: 'text', text: 'Wait until Monday' });
    expect(toolResult(llm, 1)).toMatchObject({
      selected_option_id: 'no_with_feedback',
      free_text: 'Wait until Monday',
      confirmed: false,
      cancelled: false,
    });
  });

  it('a cancelled prompt is an answer: cancelled true, and the run goes on', async () => {
    const pause = await pausedRun(ASK, reply.text('Cancelled; nothing was created.'));
    const end = await answer(pause, { type: 'cancel' });
    expect(end).toMatchObject({ status: 'completed', result: { value: 'Cancelled; nothing was created.' } });
    expect(toolResult(llm, 1)).toEqual({
      interaction_id: pause.interaction_id,
      selected_option_id: null,
      free_text: null,
      confirmed: null,
      cancelled: true,
    });
    expect(api.created).toEqual([]);
  });

  it('a tool called in the same turn as ask_confirmation is held back until the model calls it again', async () => {
    const both = reply.tools([
      { name: 'ask_confirmation', arguments: { question: 'Create it?' }, id: 'ask' },
      { name: 'create_ticket', arguments: { body: { title: 'Printer jam' } }, id: 'create' },
    ]);
    const pause = await pausedRun(both, reply.text('Waiting for you.'));
    await answer(pause, { type: 'radio', selected_option: CONFIRM });
    const [asked, held] = llm.requests[1].body.messages.slice(-2);
    expect(asked).toMatchObject({
      tool_call_id: 'ask',
      content: expect.stringContaining('"confirmed":true'),
    });
    expect(held).toEqual({
      role: 'tool',
      tool_call_id: 'create',
      content:
        'Not run: create_ticket was called in the same turn as ask_confirmation. Call it again once you have the answer.',
    });
    expect(api.created).toEqual([]);
  });

  it('ask_question with options: a radio prompt of those options; the chosen id goes to the model', async () => {
    const question = reply.tools([
      {
        name: 'ask_question',
        arguments: {
          question: 'Which data source should I connect to?',
          options: [
            { id: 'postgres', label: 'PostgreSQL' },
            { id: 'bigquery', label: 'BigQuery', description: 'Google Cloud warehouse' },
          ],
        },
      },
    ]);
    const pause = await pausedRun(question, reply.text('Connecting to BigQuery.'));
    expect(pause.prompt).toMatchObject({
      input_type: 'radio',
      text: 'Which data source should I connect to?',
      options: [
        { id: 'postgres', label: 'PostgreSQL', value: 'postgres' },
        { id: 'bigquery', label: 'BigQuery', value: 'bigquery', description: 'Google Cloud warehouse' },
      ],
      allow_free_text: true,
      allow_cancel: true,
    });
    const bigquery = (pause.prompt.options as unknown[])[1];
    await answer(pause, { type: 'radio', selected_option: bigquery });
    expect(toolResult(llm, 1)).toEqual({
      interaction_id: pause.interaction_id,
      selected_option_id: 'bigquery',
      free_text: null,
      confirmed: null,
      cancelled: false,
    });
  });

  it('ask_question: text typed instead of an option, and a text prompt when there are no options', async () => {
    const withOptions = reply.tools([
      { name: 'ask_question', arguments: { question: 'Which one?', options: [{ id: 'a', label: 'A' }] } },
    ]);
    let pause = await pausedRun(withOptions, reply.text('Snowflake it is.'));
    await answer(pause, { type: 'text', text: 'Snowflake' });
    expect(toolResult(llm, 1)).toMatchObject({
      selected_option_id: null,
      free_text: 'Snowflake',
      cancelled: false,
    });
    llm.reset();

    pause = await pausedRun(
      reply.tools([{ name: 'ask_question', arguments: { question: 'What title?' } }]),
      reply.text('Titled.'),
    );
    expect(pause.prompt).toEqual({
      input_type: 'text',
      text: 'What title?',
      placeholder: null,
      required: true,
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
      allow_free_text: true,
      allow_cancel: true,
    });
    await answer(pause, { type: 'text', text: 'Printer jam on floor 3' });
    expect(toolResult(llm, 1)).toEqual({
      interaction_id: pause.interaction_id,
      selected_option_id: null,
      free_text: 'Printer jam on floor 3',
      confirmed: null,
      cancelled: false,
    });
  });

  it('/v1/chat/stream: event: interaction_required, then the answer streams once the person confirmed', async () => {
    llm.script(ASK, CREATE, reply.text('Ticket 1 is filed.'));
    const stream = await openStream(`${t.url}/v1/chat/stream`, {
      body: { messages: [{ role: 'user', content: 'File a ticket' }] },
    });
    const event = await stream.nextEvent<{ prompt: Record<string, unknown>; response_url: string }>(
      'interaction_required',
    );
    expect(event.prompt).toMatchObject({ input_type: 'radio', options: [CONFIRM, REJECT, FEEDBACK] });
    expect((await ex.answer(event.response_url, { type: 'radio', selected_option: CONFIRM })).status).toBe(
      204,
    );
    await stream.end();
    const text = stream
      .dataFrames()
      .map((d) => (d.json as { choices: { delta: { content?: string } }[] }).choices[0].delta.content ?? '')
      .join('');
    expect(text).toBe('Ticket 1 is filed.');
    expect(api.created).toHaveLength(1);
  });

  it('on a route that cannot ask (/v1/chat/completions) the run fails, naming the interactive route', async () => {
    llm.script(ASK);
    const sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const call = sdk.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: 'File it' }],
    });
    await expect(call).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining(
        'This workflow tried to ask a person (ctx.prompt), but /v1/chat/completions is not an interactive route. Use the interactive route /v1/chat instead.',
      ),
    });
    expect(api.created).toEqual([]);
  });
});

describe('an interaction tool with timeout_seconds', () => {
  it('a prompt that runs out of time reads as cancelled, and the run goes on', async () => {
    const llm = await FakeLlm.start();
    const functions = { ask_confirmation: { _type: 'ask_confirmation', timeout_seconds: 0.1 } };
    const t = await startApp(
      agentYaml(llm, { _type: 'tool_calling_agent', tool_names: ['ask_confirmation'] }, functions),
    );
    try {
      llm.script(ASK, reply.text('No answer came; I did nothing.'));
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      expect(res.status).toBe(202);
      expect((res.json as unknown as Pause).prompt).toMatchObject({ timeout: 0.1 });
      // NAT's grace period (5 s) follows the prompt's own timeout
      const end = await new Executions(t.url).ended(res.json.execution_id as string, 10_000);
      expect(end).toMatchObject({ status: 'completed', result: { value: 'No answer came; I did nothing.' } });
      expect(toolResult(llm, 1)).toMatchObject({
        cancelled: true,
        selected_option_id: null,
        confirmed: null,
      });
    } finally {
      await t.close();
      await llm.close();
    }
  });
});
