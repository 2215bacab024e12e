import { SignJWT } from 'jose';
import { IsOptional, IsString } from 'class-validator';
import type { ChatRequest } from '../../src/runtime/chat-input';
import { natUserId } from '../../src/core/identity/user-id';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { metricValue } from '../utils/metrics';
import { eventually, FAILURE_POINTS, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import {
  connectClosingAfterEach,
  isComplete,
  userMessage,
  WsClient,
  type WsMessage,
} from '../utils/ws-client';

const SECRET = 'ws-test-secret-that-is-long-enough-for-hs256';

class HistoryConfig {
  @IsString() _type!: string;
  @IsOptional() @IsString() description?: string;
}

/** Answers with the conversation it received, so a test sees what the workflow got. */
const registry = builtinRegistry().register({
  type: 'history',
  description: 'says what it was given',
  config: HistoryConfig,
  build: () => ({
    type: 'history',
    description: 'says what it was given',
    input: { kind: 'chat' },
    fromChat: (request: ChatRequest) => request,
    async run(input, ctx) {
      await ctx.step('lookup', 'tool', () => 'found', { input: { q: 'x' } });
      const said = (input as ChatRequest).messages.map((m) => `${m.role}:${JSON.stringify(m.content)}`);
      for (const line of said) ctx.emit(`${line};`);
      return said.join(';') + ';';
    },
  }),
});

const HISTORY = [
  { role: 'user', text: 'Hello' },
  { role: 'assistant', text: 'Hi' },
  { role: 'user', text: 'Sum it up' },
];

const types = (messages: WsMessage[]) => messages.map((m) => (m.status ? `${m.type}:${m.status}` : m.type));

describe('WebSocket gateway: NAT message schema', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();

  beforeAll(async () => {
    t = await startApp(
      `
general:
  auth:
    jwt: { secret: '${SECRET}' }
  front_end:
    websocket_max_message_bytes: 4096
workflow:
  _type: history
`,
      registry,
    );
  });
  afterAll(() => t.close());

  it('chat_stream: steps, streamed chunks, complete, then the trace; every reply names the user message', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage(HISTORY, { schema_type: 'chat_stream', id: 'msg-1', conversation_id: 'conv-A' }));
    const run = await ws.run();
    expect(types(run)).toEqual([
      'system_intermediate_message:in_progress',
      'system_intermediate_message:in_progress',
      'system_response_message:in_progress',
      'system_response_message:in_progress',
      'system_response_message:in_progress',
      'system_response_message:complete',
      'observability_trace_message',
    ]);
    for (const m of run) expect(m).toMatchObject({ parent_id: 'msg-1', conversation_id: 'conv-A' });
    expect(run[0]).toMatchObject({
      thread_id: 'default',
      intermediate_parent_id: 'root',
      content: { name: 'Tool: lookup' },
    });
    expect(run[0].content.payload).toContain('**Input:**');
    expect(run[1].content.payload).toContain('**Output:**');
    expect(run.slice(2, 5).map((m) => m.content.text)).toEqual([
      'user:[{"type":"text","text":"Hello"}];',
      'assistant:[{"type":"text","text":"Hi"}];',
      'user:[{"type":"text","text":"Sum it up"}];',
    ]);
    expect(run[6].content.observability_trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Date(run[0].timestamp as string).toISOString()).toBe(run[0].timestamp);
  });

  it('chat: the whole history goes in, one response comes out', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage(HISTORY, { schema_type: 'chat', id: 'msg-2' }));
    const run = await ws.run();
    expect(types(run)).toEqual([
      'system_intermediate_message:in_progress',
      'system_intermediate_message:in_progress',
      'system_response_message:in_progress',
      'system_response_message:complete',
      'observability_trace_message',
    ]);
    expect(run[2].content.text).toBe(
      'user:[{"type":"text","text":"Hello"}];assistant:[{"type":"text","text":"Hi"}];user:[{"type":"text","text":"Sum it up"}];',
    );
  });

  it('generate and generate_stream: the workflow gets only the last user text', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage(HISTORY, { schema_type: 'generate', id: 'g-1' }));
    const single = await ws.run();
    expect(types(single)).toEqual([
      'system_intermediate_message:in_progress',
      'system_intermediate_message:in_progress',
      'system_response_message:in_progress',
      'system_response_message:complete',
      'observability_trace_message',
    ]);
    expect(single[2].content.text).toBe('user:"Sum it up";');

    ws.send(userMessage(HISTORY, { schema_type: 'generate_stream', id: 'g-2' }));
    const streamed = await ws.run();
    expect(
      streamed.filter((m) => m.status === 'in_progress' && m.type === 'system_response_message'),
    ).toEqual([expect.objectContaining({ parent_id: 'g-2', content: { text: 'user:"Sum it up";' } })]);
  });

  it('accepts unknown fields the NAT UI adds to every message', async () => {
    const ws = await connect(t.url);
    ws.send({
      ...userMessage('hi', { schema_type: 'chat' }),
      timestamp: 'now',
      custom_param: { x: 1 },
      user: {},
    });
    expect((await ws.run()).some(isComplete)).toBe(true);
  });

  describe('bad input gets an error_message and the connection stays usable', () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['not JSON', '{"type": ', 'invalid_message', /Not valid JSON/],
      ['not an object', '[1,2]', 'invalid_message', /JSON object/],
      ['no type', { id: 'x' }, 'invalid_message', /no "type"/],
      ['an unknown type', { type: 'user_shout' }, 'invalid_message_type', /user_shout.*user_message/],
      [
        'a user_message failing its schema',
        { type: 'user_message', schema_type: 'poem', content: { messages: [] } },
        'invalid_message',
        /schema_type should be one of chat, chat_stream, generate, generate_stream/,
      ],
      [
        'a user_message with no content',
        { type: 'user_message', schema_type: 'chat' },
        'invalid_message',
        /content/,
      ],
      [
        'a user_message with no user text',
        userMessage([{ role: 'assistant', text: 'only me' }]),
        'invalid_user_message_content',
        /No user text/,
      ],
      [
        'a user_message whose content nests 2,000 levels',
        `{"type":"user_message","schema_type":"chat","content":{"messages":[{"role":"user","content":${'['.repeat(2000)}${']'.repeat(2000)}}]}}`,
        'invalid_message',
        /nested deeper than 64 levels/,
      ],
      [
        'a frame nesting 65 levels',
        `{"type":"user_message","x":${'['.repeat(64)}${']'.repeat(64)}}`,
        'invalid_message',
        /nested deeper than 64 levels/,
      ],
      [
        'a reply when no prompt waits',
        { type: 'user_interaction_message', content: { messages: [] } },
        'invalid_data_content',
        /No prompt is waiting/,
      ],
    ];
    it.each(cases)('%s', async (_name, frame, code, details) => {
      const ws = await connect(t.url);
      ws.send(frame);
      const error = await ws.next();
      expect(error).toMatchObject({ type: 'error_message', status: 'in_progress', content: { code } });
      expect(error.content.details).toMatch(details);
      expect(typeof error.content.message).toBe('string');
      ws.send(userMessage('still there?', { schema_type: 'chat' }));
      expect((await ws.run()).filter(isComplete)).toHaveLength(1);
    });

    it('a binary frame', async () => {
      const ws = await connect(t.url);
      ws.socket.send(Buffer.from('{"type":"user_message"}'), { binary: true });
      expect(await ws.next()).toMatchObject({
        type: 'error_message',
        content: { code: 'invalid_message', details: expect.stringMatching(/Binary frames/) },
      });
      ws.send(userMessage('ok', { schema_type: 'chat' }));
      expect((await ws.run()).filter(isComplete)).toHaveLength(1);
    });
  });

  it('a message over websocket_max_message_bytes closes the socket with 1009', async () => {
    const ws = await connect(t.url);
    ws.send(userMessage('x'.repeat(5000)));
    expect((await ws.closed).code).toBe(1009);
  });

  it('invalid UTF-8 in a text frame closes the socket with 1007', async () => {
    const ws = await connect(t.url);
    ws.socket.send(Buffer.from([0x22, 0xc3, 0x28, 0x22]), { binary: false });
    expect((await ws.closed).code).toBe(1007);
  });

  it('an invalid ?session= is accepted, then closed with 1008 "Invalid session ID"', async () => {
    const ws = await connect(t.url, { session: 'bad id!' });
    expect(await ws.closed).toEqual({ code: 1008, reason: 'Invalid session ID' });
  });

  it('an unknown path is refused at the handshake', async () => {
    await expect(WsClient.connect(t.url, {}, { path: '/elsewhere' })).rejects.toThrow(/404/);
  });

  it('a second user_message cancels the run still going and starts the new one', async () => {
    const slow = await startApp(scriptedYaml(`- sleep: { seconds: 30 }`, 'slow done'));
    const ws = await WsClient.connect(slow.url);
    try {
      const executions = (status: string) => metricValue(slow.url, 'interlude_executions', { status });
      ws.send(userMessage('first', { schema_type: 'chat', id: 'first' }));
      await eventually(async () => expect(await executions('running')).toBe(1));
      ws.send(userMessage('second', { schema_type: 'chat', id: 'second' }));
      await eventually(async () => expect(await executions('cancelled')).toBe(1));
      expect(ws.received.filter((m) => m.parent_id === 'first')).toEqual([]);
      const metrics = await (await fetch(`${slow.url}/metrics`)).text();
      expect(metrics).toMatch(/interlude_executions\{status="cancelled"\} 1/);
      expect(metrics).toMatch(/interlude_executions\{status="running"\} 1/);
      expect(metrics).toMatch(/interlude_websocket_connections 1/);
    } finally {
      ws.close();
      await ws.closed;
      await slow.close();
    }
  });

  it.each(FAILURE_POINTS)(
    'a workflow that fails %s: error_message (workflow_error, the error type, its text), then complete',
    async (_where, before) => {
      const failing = await startApp(
        scriptedYaml(`${before}\n- fail: { message: 'tool exploded', error_type: ValueError }`, 'unreached'),
      );
      const ws = await WsClient.connect(failing.url);
      try {
        ws.send(userMessage('x', { id: 'f-1', schema_type: 'chat_stream' }));
        const run = await ws.run();
        expect(types(run).slice(-3)).toEqual([
          'error_message:in_progress',
          'system_response_message:complete',
          'observability_trace_message',
        ]);
        expect(run[run.length - 3]).toMatchObject({
          parent_id: 'f-1',
          content: { code: 'workflow_error', message: 'ValueError', details: 'tool exploded' },
        });
      } finally {
        ws.close();
        await failing.close();
      }
    },
  );

  describe('auth_message', () => {
    const jwt = (sub: string, secret = SECRET) =>
      new SignJWT({ email: `${sub}@example.com` })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));

    it('a verified JWT answers success with the user id; unverified API keys and Basic answer error', async () => {
      const ws = await connect(t.url);
      ws.send({ type: 'auth_message', id: 'a1', payload: { method: 'jwt', token: await jwt('carol') } });
      expect(await ws.next()).toMatchObject({
        type: 'auth_response_message',
        parent_id: 'a1',
        status: 'success',
        user_id: natUserId('carol'),
      });
      // This server verifies JWTs, so keys and passwords it has no list of name nobody (issue 12).
      ws.send({ type: 'auth_message', payload: { method: 'api_key', token: 'key-123' } });
      expect(await ws.next()).toMatchObject({ status: 'error', user_id: null });
      ws.send({ type: 'auth_message', payload: { method: 'basic', username: 'dave', password: 'pw' } });
      expect(await ws.next()).toMatchObject({ status: 'error', user_id: null });
    });

    it('a bad JWT or a malformed payload answers error with user_auth_error and keeps the connection', async () => {
      const ws = await connect(t.url);
      ws.send({
        type: 'auth_message',
        id: 'a2',
        payload: { method: 'jwt', token: await jwt('eve', 'wrong-secret-wrong-secret-wrong-secret') },
      });
      const refused = await ws.next();
      expect(refused).toMatchObject({
        type: 'auth_response_message',
        parent_id: 'a2',
        status: 'error',
        user_id: null,
        payload: { code: 'user_auth_error', message: 'Authentication failed' },
      });
      expect(refused.payload).toMatchObject({ details: expect.stringMatching(/signature/i) });
      ws.send({ type: 'auth_message', payload: { method: 'jwt', token: 'not-a-jwt' } });
      expect(await ws.next()).toMatchObject({
        status: 'error',
        payload: { details: 'The token is not a JWT' },
      });
      ws.send({ type: 'auth_message', payload: { method: 'password' } });
      expect(await ws.next()).toMatchObject({
        status: 'error',
        payload: { details: expect.stringMatching(/method/) },
      });
      ws.send(userMessage('hi', { schema_type: 'chat' }));
      expect((await ws.run()).filter(isComplete)).toHaveLength(1);
    });
  });
});

describe('WebSocket gateway: keep-alive and handshake identity', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(`
general:
  auth:
    jwt: { secret: '${SECRET}' }
  front_end:
    websocket_ping_seconds: 1
workflow:
  _type: echo
`);
  });
  afterAll(() => t.close());

  it('pings every websocket_ping_seconds and drops a client that stops answering', async () => {
    const live = await WsClient.connect(t.url);
    const silent = await WsClient.connect(t.url, {}, { autoPong: false });
    let pings = 0;
    live.socket.on('ping', () => pings++);
    try {
      expect((await silent.closed).code).toBe(1006);
      expect(pings).toBeGreaterThanOrEqual(1);
      expect(live.socket.readyState).toBe(live.socket.OPEN);
    } finally {
      live.close();
    }
  });

  it('a handshake with a token that fails verification is accepted, then closed with 1008 and why', async () => {
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('mallory')
      .sign(new TextEncoder().encode('not-the-server-secret-not-the-server-secret'));
    const ws = await WsClient.connect(t.url, {}, { headers: { authorization: `Bearer ${forged}` } });
    const closed = await ws.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/signature/i);
  });
});
