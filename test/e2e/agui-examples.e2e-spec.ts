import { FakeLlm, reply } from '../utils/fake-llm';
import { interruptsOf, RecordingAgent, textOf, type AguiEvent } from '../utils/agui-client';
import { startTicketApi, ticketAgentYaml } from '../utils/agui-ticket-api';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

jest.setTimeout(20_000);

const confirm = (question: string) => ({
  name: 'ask_confirmation',
  arguments: { question, target_tool: 'create_ticket' },
});
const results = (events: AguiEvent[]) => events.filter((e) => e.type === 'TOOL_CALL_RESULT');

/** The four examples of the AG-UI interrupts page, as this server plays them. */
describe('AG-UI: the spec’s interrupt examples', () => {
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

  it('minimal tool approval: run-2 emits TOOL_CALL_RESULT against the interrupted call, then success', async () => {
    llm.script(reply.tools([confirm("Send email to a@b.com with subject 'Hi'?")]), reply.text('Sent.'));
    const agent = new RecordingAgent(url).say('email a@b.com');
    const run1 = await agent.run({ runId: 'run-1' });
    const [interrupt] = interruptsOf(run1);
    expect(run1.at(-1)).toMatchObject({ runId: 'run-1', threadId: agent.threadId });
    expect(interrupt).toMatchObject({
      reason: 'tool_call',
      message: "Send email to a@b.com with subject 'Hi'?",
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' } },
        required: ['approved'],
      },
    });
    const run2 = await agent.run({
      runId: 'run-2',
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(run2[0]).toMatchObject({ type: 'RUN_STARTED', runId: 'run-2' });
    expect(results(run2)[0]).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(run2.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: 'run-2', outcome: { type: 'success' } });
  });

  it('approve with edits: run-10 TOOL_CALL_ARGS is the proposal, run-11 the edits and the actual result', async () => {
    llm.script(
      reply.tools([confirm('Send email to a@b.com? You can edit the body before approving.')]),
      reply.tools([{ name: 'create_ticket', arguments: { body: { body: 'Hi' } } }]),
      reply.text('Sent.'),
    );
    const agent = new RecordingAgent(url).say('email a@b.com');
    const run10 = await agent.run({ runId: 'run-10' });
    const [interrupt] = interruptsOf(run10);
    const args = run10.find((e) => e.type === 'TOOL_CALL_ARGS' && e.toolCallId === interrupt.toolCallId)!;
    expect(JSON.parse(args.delta as string)).toMatchObject({ target_tool: 'create_ticket' });
    const editedArgs = { body: { body: 'Hi (revised per my note)' } };
    const run11 = await agent.run({
      runId: 'run-11',
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true, editedArgs } }],
    });
    expect(results(run11)[0]).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(api.created).toEqual([editedArgs.body]);
  });

  it('parallel approvals: asked one after the other, two approved and one cancelled, each answered on its own call', async () => {
    llm.script(
      reply.tools([
        confirm('Approve sendEmail to x@y.com?'),
        confirm('Approve sendEmail to y@z.com?'),
        confirm('Approve sendEmail to z@w.com?'),
      ]),
      reply.text('Sent two, skipped one.'),
    );
    const agent = new RecordingAgent(url).say('email three people');
    const seen: string[] = [];
    let events = await agent.run({ runId: 'run-20' });
    const answers = [{ approved: true }, { approved: true }, 'cancel'];
    for (const answer of answers) {
      const [interrupt] = interruptsOf(events);
      seen.push(interrupt.message!);
      events = await agent.resume({ [interrupt.id]: answer });
      expect(results(events)[0]).toMatchObject({ toolCallId: interrupt.toolCallId });
    }
    expect(seen).toEqual([
      'Approve sendEmail to x@y.com?',
      'Approve sendEmail to y@z.com?',
      'Approve sendEmail to z@w.com?',
    ]);
    const answered = llm.requests[1].body.messages
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content!) as Record<string, unknown>);
    expect(answered.map((a) => [a.confirmed, a.cancelled])).toEqual([
      [true, false],
      [true, false],
      [null, true],
    ]);
    expect(textOf(events)).toBe('Sent two, skipped one.');
  });
});

describe('AG-UI: the spec’s non-tool input request, and a 0.0.58 client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: dropdown, text: 'Please provide the quarterly filing details.', timeout: 3600, options: [{ id: Q1, label: Q1, value: Q1 }, { id: Q2, label: Q2, value: Q2 }], save_as: quarter }
- prompt: { input_type: text, text: 'Revenue?', save_as: revenue }`,
        'Filed {{quarter}}: {{revenue}}',
      ),
    );
  });
  afterAll(() => t.close());

  it('an input_required interrupt with a responseSchema and expiresAt, resumed with its payload', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('file');
    const before = Date.now();
    const [form] = interruptsOf(await agent.run({ runId: 'run-30' }));
    expect(form).toMatchObject({
      reason: 'input_required',
      message: 'Please provide the quarterly filing details.',
      responseSchema: { enum: ['Q1', 'Q2'] },
    });
    expect(Date.parse(form.expiresAt!)).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    const [revenue] = interruptsOf(await agent.resume({ [form.id]: 'Q1' }));
    expect(textOf(await agent.resume({ [revenue.id]: '4200000' }))).toBe('Filed Q1: 4200000');
  });

  it('the 0.0.58 HttpAgent (strict outcome schema, no protocolVersion) runs, interrupts and resumes', async () => {
    const { HttpAgent } = await import('ag-ui-client-058');
    const agent = new HttpAgent({ url: `${t.url}/v1/ag-ui` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'file' });
    const seen: string[] = [];
    let lastEvent: Record<string, unknown> = {};
    agent.subscribe({
      onEvent: ({ event }) => {
        seen.push(event.type);
        lastEvent = event as Record<string, unknown>;
      },
    });
    await agent.runAgent();
    expect(seen.slice(-3)).toEqual(['STATE_SNAPSHOT', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    const [form] = agent.pendingInterrupts;
    await agent.runAgent({ resume: [{ interruptId: form.id, status: 'resolved', payload: 'Q2' }] });
    const [revenue] = agent.pendingInterrupts;
    // A cancel without outcome "cancelled" (unknown to 0.0.58): RUN_ERROR {code: cancelled}.
    seen.length = 0;
    await agent.runAgent({ resume: [{ interruptId: revenue.id, status: 'cancelled' }] });
    expect(lastEvent).toMatchObject({ type: 'RUN_ERROR', code: 'cancelled' });
  });
});
