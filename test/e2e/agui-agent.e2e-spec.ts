import { FakeLlm, reply } from '../utils/fake-llm';
import { interruptsOf, RecordingAgent, textOf, types, type AguiEvent } from '../utils/agui-client';
import { startTicketApi, ticketAgentYaml } from '../utils/agui-ticket-api';
import { startApp, type TestApp } from '../utils/test-app';

const ASK = reply.tools([
  {
    name: 'ask_confirmation',
    arguments: { question: 'Create ticket "Printer jam"?', target_tool: 'create_ticket' },
  },
]);
const create = (title: string) => reply.tools([{ name: 'create_ticket', arguments: { body: { title } } }]);

const started = (events: AguiEvent[], name: string) =>
  events.find((e) => e.type === 'TOOL_CALL_START' && e.toolCallName === name)!;

jest.setTimeout(20_000);

describe('AG-UI: an LLM agent with tool calls and ask_confirmation', () => {
  let llm: FakeLlm;
  let api: Awaited<ReturnType<typeof startTicketApi>>;
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    api = await startTicketApi();
    t = await startApp(ticketAgentYaml(llm, api.url));
    url = `${t.url}/v1/ag-ui`;
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

  it('streams the tool call the model makes, its result, then the answer token by token', async () => {
    llm.script(create('Printer jam'), reply.text('Filed as ticket 1.'));
    const events = await new RecordingAgent(url).say('File a ticket: printer jam').run();
    const call = started(events, 'create_ticket');
    const args = events.find((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === call.toolCallId)!;
    expect(JSON.parse(args.delta as string)).toEqual({ body: { title: 'Printer jam' } });
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT')!;
    expect(result).toMatchObject({ toolCallId: call.toolCallId, role: 'tool' });
    expect(JSON.parse(result.content as string)).toEqual({ status: 201, body: { id: 1 } });
    expect(textOf(events)).toBe('Filed as ticket 1.');
    expect(types(events).filter((t) => t === 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(api.created).toEqual([{ title: 'Printer jam' }]);
    // The model got the AG-UI history as a chat.
    expect(llm.requests[0].body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'File a ticket: printer jam',
    });
  });

  it('ask_confirmation interrupts bound to its tool call; approval resumes it, the tool runs, the run completes', async () => {
    llm.script(ASK, create('Printer jam'), reply.text('Created ticket 1.'));
    const agent = new RecordingAgent(url).say('File a ticket about the printer jam');
    const first = await agent.run();
    const [interrupt] = interruptsOf(first);
    const ask = started(first, 'ask_confirmation');
    expect(interrupt).toMatchObject({
      reason: 'tool_call',
      toolCallId: ask.toolCallId,
      message: 'Create ticket "Printer jam"?',
      responseSchema: {
        type: 'object',
        required: ['approved'],
        properties: { editedArgs: { type: 'object' } },
      },
      metadata: { nat: { input_type: 'radio' } },
    });
    expect(types(first).slice(-3)).toEqual(['STATE_SNAPSHOT', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(first.some((e) => e.type === 'TOOL_CALL_RESULT')).toBe(false);
    expect(agent.pendingInterrupts).toHaveLength(1);
    expect(api.created).toEqual([]);
    // The client refuses a run that does not address it.
    await expect(agent.run()).rejects.toThrow(/pending interrupt/);

    const second = await agent.resume({ [interrupt.id]: { approved: true } });
    expect(second.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: ask.toolCallId });
    expect(second.some((e) => e.type === 'TOOL_CALL_START' && e.toolCallId === ask.toolCallId)).toBe(false);
    expect(api.created).toEqual([{ title: 'Printer jam' }]);
    expect(textOf(second)).toBe('Created ticket 1.');
    expect(second.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('approve with edits: the tool runs with the edited arguments, whatever the model then passes', async () => {
    // The model calls create_ticket with its own proposal; the person's edits replace it.
    llm.script(ASK, create('Printer jam'), reply.text('Created ticket 1.'));
    const agent = new RecordingAgent(url).say('File a ticket about the printer jam');
    const [interrupt] = interruptsOf(await agent.run());
    const edited = { body: { title: 'Printer on fire' } };
    const events = await agent.resume({ [interrupt.id]: { approved: true, editedArgs: edited } });
    const answer = JSON.parse(llm.lastMessage(1).content!) as Record<string, unknown>;
    expect(answer).toMatchObject({ confirmed: true, selected_option_id: 'yes', edited_args: edited });
    expect(api.created).toEqual([{ title: 'Printer on fire' }]);
    const call = started(events, 'create_ticket');
    const args = events.find((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === call.toolCallId)!;
    // The call the client sees carries the arguments it ran with.
    expect(JSON.parse(args.delta as string)).toEqual(edited);
  });

  it('a denial with feedback reaches the model and the tool does not run', async () => {
    llm.script(ASK, reply.text('All right, no ticket.'));
    const agent = new RecordingAgent(url).say('File a ticket');
    const [interrupt] = interruptsOf(await agent.run());
    const events = await agent.resume({ [interrupt.id]: { approved: false, feedback: 'not now' } });
    expect(JSON.parse(llm.lastMessage(1).content!)).toMatchObject({
      confirmed: false,
      selected_option_id: 'no_with_feedback',
      free_text: 'not now',
    });
    expect(textOf(events)).toBe('All right, no ticket.');
    expect(api.created).toEqual([]);
  });

  it('declares the workflow tools and approve-with-edits in its capabilities', async () => {
    const doc = (await (await fetch(`${url}/capabilities`)).json()) as {
      tools: { items: { name: string }[] };
      humanInTheLoop: Record<string, boolean>;
    };
    expect(doc.tools.items.map((i) => i.name)).toEqual(['ask_confirmation', 'ask_question', 'create_ticket']);
    expect(doc.humanInTheLoop).toEqual({
      supported: true,
      approvals: true,
      interrupts: true,
      approveWithEdits: true,
    });
  });
});
