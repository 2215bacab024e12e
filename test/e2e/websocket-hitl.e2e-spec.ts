import { natUserId } from '../../src/core/identity/user-id';
import { DEFAULT_PROMPT_ERROR } from '../utils/hitl';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';
import { connectClosingAfterEach, reply, userMessage, WsClient, type WsMessage } from '../utils/ws-client';

const EVERY_PROMPT = scriptedYaml(
  `- prompt: { input_type: notification, text: 'Starting on {{input}}.' }
- prompt: { input_type: text, text: 'Who is it for?', placeholder: 'A name', save_as: audience }
- prompt:
    input_type: binary_choice
    text: 'Include Q4?'
    options: [{ id: 'yes', label: 'Yes', value: 'yes' }, { id: 'no', label: 'No', value: 'no' }]
    save_as: q4
- prompt:
    input_type: radio
    text: 'Send how?'
    options:
      - { id: email, label: Email, value: email, description: 'By email' }
      - { id: sms, label: SMS, value: sms, description: 'By SMS' }
    save_as: channel
- prompt:
    input_type: checkbox
    text: 'Which sections?'
    options: [{ id: sales, label: Sales, value: sales }, { id: costs, label: Costs, value: costs }, { id: hiring, label: Hiring, value: hiring }]
    save_as: sections
- prompt:
    input_type: dropdown
    text: 'Which format?'
    options: [{ id: pdf, label: PDF, value: pdf }, { id: xlsx, label: Excel, value: xlsx }]
    save_as: format`,
  'For {{audience}}: Q4 {{q4}}, {{channel.label}}, {{sections.label}}, {{format.label}}',
);

describe('WebSocket gateway: people answer prompts on the socket', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();

  beforeAll(async () => {
    t = await startApp(EVERY_PROMPT);
  });
  afterAll(() => t.close());

  it('every prompt type, answered by text as the NAT UI sends it (parent_id = the user message id)', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage('the report', { id: 'u1', conversation_id: 'c1' }));
    const notification = await ws.next();
    expect(notification).toMatchObject({
      type: 'system_interaction_message',
      thread_id: 'default',
      parent_id: 'u1',
      conversation_id: 'c1',
      status: 'in_progress',
      content: {
        input_type: 'notification',
        text: 'Starting on the report.',
        timeout: null,
        error: DEFAULT_PROMPT_ERROR,
      },
    });
    const asked: WsMessage[] = [];
    for (const answer of ['Ana', 'Yes', 'sms', 'sales, Costs', 'PDF']) {
      const prompt = await ws.next();
      expect(prompt.type).toBe('system_interaction_message');
      asked.push(prompt);
      ws.send(reply(answer, { parent_id: 'u1', conversation_id: 'c1' }));
    }
    expect(asked.map((p) => p.content.input_type)).toEqual([
      'text',
      'binary_choice',
      'radio',
      'checkbox',
      'dropdown',
    ]);
    expect(asked[0].content).toEqual({
      input_type: 'text',
      text: 'Who is it for?',
      placeholder: 'A name',
      required: true,
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
    });
    expect(asked[2].content).toEqual({
      input_type: 'radio',
      text: 'Send how?',
      options: [
        { id: 'email', label: 'Email', value: 'email', description: 'By email' },
        { id: 'sms', label: 'SMS', value: 'sms', description: 'By SMS' },
      ],
      required: true,
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
    });
    expect(new Set(asked.map((p) => p.id)).size).toBe(5);
    const rest = await ws.run();
    expect(rest.filter((m) => m.type === 'system_response_message' && m.status === 'in_progress')).toEqual([
      expect.objectContaining({
        content: { text: 'For Ana: Q4 yes, SMS, Sales, Costs, PDF' },
        parent_id: 'u1',
      }),
    ]);
  });

  it('a reply that fits no option gets invalid_data_content and the prompt stays open', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage('x', { id: 'u2' }));
    await ws.until((m) => m.content.input_type === 'text');
    ws.send(reply('Ana'));
    const choice = await ws.next();
    expect(choice.content.input_type).toBe('binary_choice');
    ws.send(reply('maybe'));
    const error = await ws.next();
    expect(error).toMatchObject({
      type: 'error_message',
      content: {
        code: 'invalid_data_content',
        details: expect.stringMatching(/"maybe" is not one of the options.*"yes", "no"/),
      },
    });
    ws.send(reply('no'));
    expect((await ws.next()).content.input_type).toBe('radio');
    ws.send(reply('Email'));
    expect((await ws.next()).type).toBe('system_interaction_message');
    ws.send(reply('hiring, fax'));
    expect(await ws.next()).toMatchObject({
      type: 'error_message',
      content: { code: 'invalid_data_content', details: expect.stringMatching(/"fax" is not an option/) },
    });
  });

  it('a reply whose parent_id names the interaction id answers that prompt', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage('x', { id: 'u3' }));
    const text = await ws.until((m) => m.content.input_type === 'text');
    const prompt = text[text.length - 1];
    ws.send(reply('Named', { parent_id: prompt.id }));
    const next = await ws.next();
    expect(next.content.input_type).toBe('binary_choice');
    expect(next.id).not.toBe(prompt.id);
  });

  it('a reply naming a waiting interaction id answers it whatever its conversation_id', async () => {
    const ws = await connect(t.url, { session: 'carla' });
    ws.send(userMessage('x', { id: 'u7', conversation_id: 'c7' }));
    const asked = await ws.until((m) => m.content.input_type === 'text');
    ws.send(reply('Other conv', { parent_id: asked[asked.length - 1].id, conversation_id: 'elsewhere' }));
    const binary = await ws.next();
    expect(binary.content.input_type).toBe('binary_choice');
    const other = await connect(t.url, { session: 'carla' });
    other.send(reply('Yes', { parent_id: binary.id, conversation_id: null }));
    expect((await ws.next()).content.input_type).toBe('radio');
  });

  it('another identity cannot answer a prompt by naming its interaction id', async () => {
    const ws = await connect(t.url, { session: 'dana' });
    ws.send(userMessage('x', { id: 'u8', conversation_id: 'c8' }));
    const asked = await ws.until((m) => m.content.input_type === 'text');
    const promptId = asked[asked.length - 1].id;
    const intruder = await connect(t.url, { session: 'eve' });
    intruder.send(reply('Eve', { parent_id: promptId, conversation_id: 'c8' }));
    expect(await intruder.next()).toMatchObject({
      type: 'error_message',
      content: { code: 'invalid_data_content' },
    });
    ws.send(reply('Dana', { parent_id: promptId }));
    expect((await ws.next()).content.input_type).toBe('binary_choice');
  });

  it('a reply for another conversation finds no prompt waiting', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage('x', { id: 'u4', conversation_id: 'mine' }));
    await ws.until((m) => m.content.input_type === 'text');
    ws.send(reply('Ana', { conversation_id: 'other' }));
    expect(await ws.next()).toMatchObject({
      type: 'error_message',
      content: {
        code: 'invalid_data_content',
        details: 'No prompt is waiting for an answer in this conversation',
      },
    });
  });
});

describe('WebSocket gateway: cancel, timeout, reconnect, identity', () => {
  it('content.cancel declines a prompt with allow_cancel; without it the reply is refused', async () => {
    const t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Must answer' }
- prompt: { input_type: text, text: 'May decline', allow_cancel: true }`,
        'done',
      ).replace('  output:', "  cancel_output: 'You declined.'\n  output:"),
    );
    const ws = await WsClient.connect(t.url);
    try {
      ws.send(userMessage('x'));
      await ws.next();
      ws.send(reply('', { cancel: true }));
      expect(await ws.next()).toMatchObject({
        type: 'error_message',
        content: { code: 'invalid_data_content', details: expect.stringMatching(/cannot be cancelled/) },
      });
      ws.send(reply('fine'));
      expect((await ws.next()).content.text).toBe('May decline');
      ws.send(reply('', { cancel: true }));
      const rest = await ws.run();
      expect(rest.find((m) => m.status === 'in_progress')?.content.text).toBe('You declined.');
    } finally {
      ws.close();
      await t.close();
    }
  });

  it('a prompt that times out ends the run with a workflow_error, then complete', async () => {
    const t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Quick!', timeout: 0.2 }`, 'never'),
    );
    const ws = await WsClient.connect(t.url);
    try {
      ws.send(userMessage('x', { id: 'u5' }));
      expect((await ws.next()).content.timeout).toBe(0.2);
      const rest = await ws.run(10_000);
      expect(rest.map((m) => m.type)).toEqual([
        'error_message',
        'system_response_message',
        'observability_trace_message',
      ]);
      expect(rest[0]).toMatchObject({
        parent_id: 'u5',
        content: {
          code: 'workflow_error',
          message: 'TimeoutError',
          details: expect.stringMatching(/timed out/),
        },
      });
    } finally {
      ws.close();
      await t.close();
    }
  });

  describe('reconnect', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(
        scriptedYaml(
          `- prompt: { input_type: text, text: 'Still there?', timeout: 30 }
- stream: { text: 'after the answer' }`,
          ' ok {{input}}',
        ),
      );
    });
    afterAll(() => t.close());

    it('the same user takes over the run and gets the prompt again with the time left; another user cannot', async () => {
      const first = await WsClient.connect(t.url, { session: 'alice' });
      first.send(userMessage('x', { id: 'u6', conversation_id: 'conv-r' }));
      const asked = await first.next();
      expect(asked.content.timeout).toBe(30);
      first.close();
      await first.closed;

      const bob = await WsClient.connect(t.url, { session: 'bob', conversation_id: 'conv-r' });
      try {
        // Bob's first messages answer his own frames: the prompt is never sent to him
        for (let i = 0; i < 2; i++) {
          bob.send(reply('I am Bob', { conversation_id: 'conv-r' }));
          expect(await bob.next()).toMatchObject({ content: { code: 'invalid_data_content' } });
        }
      } finally {
        bob.close();
      }

      // Alice takes over (again, until at least two seconds have gone from the prompt's time)
      let again!: WsClient;
      let resent!: WsMessage;
      await eventually(
        async () => {
          again = await WsClient.connect(t.url, { session: 'alice', conversation_id: 'conv-r' });
          resent = await again.next();
          if ((resent.content.timeout as number) > 28) {
            again.close();
            await again.closed;
          }
          expect(resent.content.timeout).toBeLessThanOrEqual(28);
        },
        5000,
        200,
      );
      try {
        expect(resent).toMatchObject({
          type: 'system_interaction_message',
          id: asked.id,
          parent_id: 'u6',
          conversation_id: 'conv-r',
          content: { ...asked.content, timeout: expect.any(Number) },
        });
        // What is left, in whole seconds.
        expect(Number.isInteger(resent.content.timeout)).toBe(true);
        expect(resent.content.timeout).toBeGreaterThanOrEqual(25);
        expect(resent.content.timeout).toBeLessThanOrEqual(28);
        again.send(reply('yes', { parent_id: 'u6', conversation_id: 'conv-r' }));
        const rest = await again.run();
        const texts = rest.filter((m) => m.status === 'in_progress').map((m) => m.content.text);
        expect(texts.join('')).toBe('after the answer ok x');
      } finally {
        again.close();
      }
    });

    it('an anonymous run whose socket closes is cancelled (nobody could take it over)', async () => {
      const ws = await WsClient.connect(t.url);
      ws.send(userMessage('x'));
      await ws.next();
      ws.close();
      await ws.closed;
      const metrics = async () => (await fetch(`${t.url}/metrics`)).text();
      await eventually(async () =>
        expect(await metrics()).toMatch(/interlude_executions\{status="cancelled"\} 1/),
      );
    });
  });

  it('a run left waiting with its socket closed is cancelled once the execution TTL passes', async () => {
    const t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Anyone?' }`,
        'never',
        'general:\n  execution_ttl_seconds: 1',
      ),
    );
    const cancelled = async () =>
      /interlude_executions\{status="cancelled"\} 1/.test(await (await fetch(`${t.url}/metrics`)).text());
    try {
      const ws = await WsClient.connect(t.url, { session: 'lee' });
      ws.send(userMessage('x', { conversation_id: 'c-ttl' }));
      await ws.next();
      ws.close();
      await ws.closed;
      const closedAt = Date.now();
      await eventually(async () => expect(await cancelled()).toBe(true), 3000);
      // not at once: only once the TTL (1 s) has passed since the socket closed
      expect(Date.now() - closedAt).toBeGreaterThanOrEqual(900);
      const late = await WsClient.connect(t.url, { session: 'lee', conversation_id: 'c-ttl' });
      // the first messages answer its own frames: no prompt is sent again for a cancelled run
      for (let i = 0; i < 2; i++) {
        late.send(reply('anyone?', { conversation_id: 'c-ttl' }));
        expect(await late.next()).toMatchObject({ content: { code: 'invalid_data_content' } });
      }
      late.close();
    } finally {
      await t.close();
    }
  });

  it('auth_message sets who later runs act as; the handshake cookie or ?session= before that', async () => {
    const t = await startApp('workflow:\n  _type: whoami\n', whoamiRegistry());
    const ws = await WsClient.connect(t.url, { session: 'sam' });
    try {
      ws.send(userMessage('who?', { schema_type: 'generate' }));
      const first = (await ws.run()).find((m) => m.status === 'in_progress');
      expect(JSON.parse(first!.content.text as string)).toMatchObject({
        identity: { userId: natUserId('sam'), source: 'cookie' },
      });
      ws.send({ type: 'auth_message', payload: { method: 'api_key', token: 'k-9' } });
      expect(await ws.next()).toMatchObject({ status: 'success', user_id: natUserId('k-9') });
      ws.send(userMessage('who now?', { schema_type: 'generate' }));
      const second = (await ws.run()).find((m) => m.status === 'in_progress');
      expect(JSON.parse(second!.content.text as string)).toMatchObject({
        identity: { userId: natUserId('k-9'), source: 'api_key' },
      });
      const cookie = await WsClient.connect(
        t.url,
        { session: 'ignored' },
        { headers: { cookie: 'nat-session=kim' } },
      );
      cookie.send(userMessage('who?', { schema_type: 'generate' }));
      const third = (await cookie.run()).find((m) => m.status === 'in_progress');
      cookie.close();
      expect(JSON.parse(third!.content.text as string).identity.userId).toBe(natUserId('kim'));
    } finally {
      ws.close();
      await t.close();
    }
  });
});
