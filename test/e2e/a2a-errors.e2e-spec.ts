import { a2aClient, aSend, asTask, aUserMessage, collect, stateOf } from '../utils/a2a-client';
import { ECHO_YAML, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

/** A raw JSON-RPC POST (the SDK client never sends a malformed one); the body as answered. */
async function rpc(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as { id?: unknown; error?: { code: number } } };
}

const request = (method: string, params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('A2A: JSON-RPC errors carry the codes of JSON-RPC and A2A', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startApp(ECHO_YAML);
    url = `${t.url}/a2a`;
  });
  afterAll(() => t.close());

  it.each([
    ['a body that is not JSON', '{"jsonrpc": "2.0", "method": ', -32700, null],
    ['a JSON value that is no request object', '[1, 2]', -32600, null],
    ['a request without jsonrpc "2.0"', JSON.stringify({ id: 7, method: 'GetTask', params: {} }), -32600, 7],
    [
      'a request whose method is not a string',
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 3 }),
      -32600,
      8,
    ],
    ['an unknown method', request('tasks/explode', {}), -32601, 1],
    ['params that are not an object', request('GetTask', [1]), -32602, 1],
    ['an unknown task', request('GetTask', { id: 'no-such-task' }), -32001, 1],
    [
      'a message part that is null',
      request('SendMessage', {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }, null] },
      }),
      -32602,
      1,
    ],
    [
      'a streamed message part that is no object',
      request('SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: ['a'] } }, 2),
      -32602,
      2,
    ],
    [
      'raw bytes that are no base64 string',
      request('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 7 }] } }),
      -32602,
      1,
    ],
    [
      'raw bytes that are no base64 (Node would skip what is not, and pass on fewer bytes)',
      request('SendMessage', {
        message: {
          messageId: 'm',
          role: 'ROLE_USER',
          parts: [{ raw: 'aGVsbG8*d29ybGQ=', mediaType: 'text/plain' }],
        },
      }),
      -32602,
      1,
    ],
    [
      'a text that is an object (it would arrive as "[object Object]")',
      request('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: { a: 1 } }] } }),
      -32602,
      1,
    ],
  ])('%s: %s', async (_what, body, code, id) => {
    const { json } = await rpc(url, body);
    expect(json).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  });

  it('a part that cannot be read is named, and nothing internal is said', async () => {
    const { json } = await rpc(
      url,
      request('SendMessage', {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }, null] },
      }),
    );
    expect(json.error).toMatchObject({ code: -32602, message: 'Part 1 is not an object' });
  });

  it.each([
    [
      { raw: 'aGk', mediaType: 'text/plain', filename: { name: 'a.txt' } },
      'Part 0: filename is not a string',
    ],
    [{ raw: 'a', mediaType: 'text/plain' }, 'Part 0: raw is not a base64 string'],
    [{ raw: 'aGk=\n', mediaType: 'text/plain' }, 'Part 0: raw is not a base64 string'],
    [{ url: 42 }, 'Part 0: url is not a string'],
  ])('a part misread as sent is refused, named: %j', async (part, message) => {
    const { json } = await rpc(
      url,
      request('SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [part] } }),
    );
    expect(json.error).toMatchObject({ code: -32602, message });
  });

  it('a message to a finished task is unsupported (-32004); cancelling it is not possible (-32002)', async () => {
    const client = await a2aClient(t.url);
    const done = asTask(await client.sendMessage(aSend(aUserMessage('hi'))));
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    const again = await rpc(
      url,
      request('SendMessage', {
        message: { messageId: 'm2', role: 'ROLE_USER', taskId: done.id, parts: [{ text: 'more' }] },
      }),
    );
    expect(again.json.error?.code).toBe(-32004);
    const cancel = await rpc(url, request('CancelTask', { id: done.id }));
    expect(cancel.json.error?.code).toBe(-32002);
  });
});

describe('A2A: another identity’s task is not found', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Your secret?', save_as: s }`, 'kept {{s}}'),
    );
  });
  afterAll(() => t.close());

  it('on get, cancel, subscribe and continue; the owner’s task is untouched', async () => {
    const alice = await a2aClient(t.url, { authorization: 'Bearer nvapi-alice' });
    const bob = await a2aClient(t.url, { authorization: 'Bearer nvapi-bob' });
    const task = asTask(await alice.sendMessage(aSend(aUserMessage('start'))));
    expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
    const notFound = { name: 'TaskNotFoundError' };
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toMatchObject(notFound);
    await expect(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toMatchObject(
      notFound,
    );
    await expect(collect(bob.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject(notFound);
    await expect(bob.sendMessage(aSend(aUserMessage('stolen', task)))).rejects.toMatchObject(notFound);
    // Nor does an anonymous caller who knows the id reach it.
    const anonymous = await a2aClient(t.url);
    await expect(anonymous.getTask({ tenant: '', id: task.id })).rejects.toMatchObject(notFound);

    const answered = asTask(await alice.sendMessage(aSend(aUserMessage('mine', task))));
    expect(stateOf(answered)).toBe('TASK_STATE_COMPLETED');
  });
});
