import type { Client } from '@a2a-js/sdk/client';
import type { StreamResponse } from '@a2a-js/sdk';
import { a2aClient, aSend, asTask, aUserMessage, collect, labelOf, stateOf } from '../utils/a2a-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const STEPS = `- prompt: { input_type: text, text: 'Your name?', save_as: name }
- sleep: { seconds: 1.5 }`;

/** The first `n` updates of a stream; the client then drops it. */
async function firstOf(stream: AsyncGenerator<StreamResponse>, n: number): Promise<StreamResponse[]> {
  const seen: StreamResponse[] = [];
  for await (const update of stream) {
    seen.push(update);
    if (seen.length === n) break;
  }
  return seen;
}

describe('A2A: SubscribeToTask follows a task from where it stands', () => {
  let t: TestApp;
  let client: Client;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Hello {{name}}'));
    client = await a2aClient(t.url);
  });
  afterAll(() => t.close());

  it('a waiting task: the task as it stands, then what happens once it is answered, to the end', async () => {
    const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
    const stream = client.resubscribeTask({ tenant: '', id: task.id });
    const first = (await stream.next()).value as StreamResponse;
    // Answered by another call while the subscription is open.
    await client.sendMessage(aSend(aUserMessage('Ada', task), true));
    const labels = [first, ...(await collect(stream))].map(labelOf);
    expect(labels[0]).toBe('task:INPUT_REQUIRED');
    expect(labels).toContain('status:WORKING');
    expect(labels).toContain('artifact:Hello Ada');
    expect(labels.at(-1)).toBe('status:COMPLETED');
  });

  it('a dropped stream continues: the task (with what it missed) first, then the rest', async () => {
    const first = await firstOf(client.sendMessageStream(aSend(aUserMessage('start'))), 1);
    expect(first.map(labelOf)).toEqual(['task:SUBMITTED']);
    const taskId = (first[0].payload as { value: { id: string } }).value.id;
    await eventually(async () =>
      expect(stateOf(await client.getTask({ tenant: '', id: taskId }))).toBe('TASK_STATE_INPUT_REQUIRED'),
    );
    await client.sendMessage(aSend(aUserMessage('Grace', { id: taskId, contextId: '' }), true));
    const rest = (await collect(client.resubscribeTask({ tenant: '', id: taskId }))).map(labelOf);
    // It missed the question and the answer: the task says where it now stands.
    expect(rest[0]).toBe('task:WORKING');
    expect(rest.slice(1)).toEqual(['artifact:Hello Grace', 'status:COMPLETED']);
  });

  it('a finished task is unsupported (-32004) and an unknown one not found (-32001), as plain errors without a log', async () => {
    const errors = jest.spyOn(console, 'error');
    try {
      const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
      await client.sendMessage(aSend(aUserMessage('Hopper', task)));
      expect(stateOf(await client.getTask({ tenant: '', id: task.id }))).toBe('TASK_STATE_COMPLETED');
      await expect(collect(client.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject({
        envelopeCode: -32004,
      });
      await expect(collect(client.resubscribeTask({ tenant: '', id: 'no-such-task' }))).rejects.toMatchObject(
        {
          envelopeCode: -32001,
        },
      );
      // The wire: one JSON-RPC error answer, not an event stream.
      const res = await fetch(`${t.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'SubscribeToTask',
          params: { id: 'no-such-task' },
        }),
      });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
      expect(errors.mock.calls.flat().join(' ')).not.toMatch(/Pre-stream error/);
    } finally {
      errors.mockRestore();
    }
  });

  it('another identity’s task is not found', async () => {
    const alice = await a2aClient(t.url, { cookie: 'nat-session=alice' });
    const bob = await a2aClient(t.url, { cookie: 'nat-session=bob' });
    const task = asTask(await alice.sendMessage(aSend(aUserMessage('start'))));
    await expect(collect(bob.resubscribeTask({ tenant: '', id: task.id }))).rejects.toMatchObject({
      envelopeCode: -32001,
    });
  });
});
