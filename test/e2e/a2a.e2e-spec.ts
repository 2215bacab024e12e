import {
  a2aClient,
  aSend,
  asTask,
  aUserMessage,
  collect,
  labelOf,
  stateOf,
  texts,
} from '../utils/a2a-client';
import { Executions } from '../utils/hitl';
import { ECHO_YAML, eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

describe('A2A: the echo workflow as an agent, through the SDK client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(ECHO_YAML);
  });
  afterAll(() => t.close());

  it('serves an agent card naming the workflow, its JSON-RPC endpoint on the request origin, streaming', async () => {
    const client = await a2aClient(t.url);
    const card = await client.getAgentCard();
    expect(card.name).toBe('echo');
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({ url: `${t.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true });
    expect(card.skills.map((s) => s.id)).toEqual(['echo']);
    // Asserted identity (nothing configured): every source NAT reads, none required.
    expect(Object.keys(card.securitySchemes).sort()).toEqual([
      'api_key',
      'basic',
      'bearer_jwt',
      'session_cookie',
    ]);
    expect(card.securityRequirements).toEqual([]);
  });

  it('SendMessage blocks until the task completes and carries the output as an artifact', async () => {
    const client = await a2aClient(t.url);
    const task = asTask(await client.sendMessage(aSend(aUserMessage('hello there'))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toContain('hello there');
  });

  it('SendStreamingMessage: the task first, working, the output, completed, then the stream closes', async () => {
    const client = await a2aClient(t.url);
    const updates = await collect(client.sendMessageStream(aSend(aUserMessage('stream me'))));
    const labels = updates.map(labelOf);
    expect(labels[0]).toBe('task:SUBMITTED');
    expect(labels[1]).toBe('status:WORKING');
    expect(labels[labels.length - 1]).toBe('status:COMPLETED');
    const output = labels.filter((l) => l.startsWith('artifact:')).map((l) => l.slice('artifact:'.length));
    expect(output.join('')).toContain('stream me');
  });

  it('GetTask returns the finished task with its history and output', async () => {
    const client = await a2aClient(t.url);
    const sent = asTask(await client.sendMessage(aSend(aUserMessage('remember me'))));
    const task = await client.getTask({ tenant: '', id: sent.id });
    expect(task).toMatchObject({ id: sent.id, contextId: sent.contextId });
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.history[0].parts)).toEqual(['remember me']);
    expect(texts(task.artifacts[0].parts).join('')).toContain('remember me');
  });
});

describe('A2A: cancelling a task stops its execution', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(`- sleep: { seconds: 30 }`, 'late'));
  });
  afterAll(() => t.close());

  it('CancelTask answers canceled and the execution has ended', async () => {
    const client = await a2aClient(t.url);
    const started = asTask(await client.sendMessage(aSend(aUserMessage('go'), true)));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(started));
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    const status = await new Executions(t.url).ended(started.id);
    expect(status).toMatchObject({ status: 'failed' });
    expect(stateOf(await client.getTask({ tenant: '', id: started.id }))).toBe('TASK_STATE_CANCELED');
    await eventually(async () => {
      // A second cancel of a canceled task is not an error (A2A): it answers the task as it stands.
      expect(stateOf(await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }))).toBe(
        'TASK_STATE_CANCELED',
      );
    });
  });
});

describe('A2A: where the face is served', () => {
  it('the card names public_base_url when it is set', async () => {
    const t = await startApp(
      `general:\n  front_end: { public_base_url: 'https://agents.example.com' }\n${ECHO_YAML}`,
    );
    try {
      const card = (await (await fetch(`${t.url}/.well-known/agent-card.json`)).json()) as {
        supportedInterfaces: { url: string }[];
      };
      expect(card.supportedInterfaces[0].url).toBe('https://agents.example.com/a2a');
    } finally {
      await t.close();
    }
  });

  it('a2a_path: null removes the endpoint and the card', async () => {
    const t = await startApp(`general:\n  front_end: { a2a_path: null }\n${ECHO_YAML}`);
    try {
      expect((await fetch(`${t.url}/.well-known/agent-card.json`)).status).toBe(404);
      const rpc = await fetch(`${t.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(rpc.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('A2A: a task whose events the process cannot keep for re-attaching clients', () => {
  // Every execution's events together kept within 4 KiB: the run's own first chunks are given up as
  // they come, long before it ends. The client following the task must still get every one.
  const CHUNKS = 400;
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- stream: { text: 'chunk ', repeat: ${CHUNKS} }`,
        'done',
        'general:\n  max_event_log_bytes: 4096\n',
      ),
    );
  });
  afterAll(() => t.close());

  it('SendStreamingMessage streams the whole output, from the first chunk on', async () => {
    const client = await a2aClient(t.url);
    const updates = await collect(client.sendMessageStream(aSend(aUserMessage('go'))));
    const labels = updates.map(labelOf);
    expect(labels[labels.length - 1]).toBe('status:COMPLETED');
    const output = labels.filter((l) => l.startsWith('artifact:')).map((l) => l.slice('artifact:'.length));
    // The streamed text, then the workflow's output.
    expect(output.join('')).toBe(`${'chunk '.repeat(CHUNKS)}done`);
  });

  it('SendMessage answers the completed task with the whole output as its artifact', async () => {
    const client = await a2aClient(t.url);
    const task = asTask(await client.sendMessage(aSend(aUserMessage('go'))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toBe(`${'chunk '.repeat(CHUNKS)}done`);
  });
});
