import { StreamResponse, TaskState, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aClient, aSend, asTask, aUserMessage, stateOf, texts } from '../utils/a2a-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { verifyStandardWebhook, webhookReceiver, type Delivery } from '../utils/webhook-receiver';

const SECRET = 'whsec_' + Buffer.from('a2a push secret').toString('base64');
const GENERAL = `general:
  async: { webhook_allow_hosts: [127.0.0.1, 10.1.2.3], webhook_secret: '${SECRET}', webhook_backoff_seconds: 0.05 }
  outbound: { allow_hosts: [127.0.0.1] }
`;
const ASK = `- prompt: { input_type: text, text: 'Your name?', save_as: name }`;

/** A delivery as the receiver reads it: signed (Standard Webhooks), then parsed as A2A v1.0 JSON. */
function updateOf(delivery: Delivery): StreamResponse {
  return StreamResponse.fromJSON(verifyStandardWebhook(SECRET, delivery));
}

/** A delivery in short: `status:WORKING`, `artifact:<text>`. */
function labelOf(delivery: Delivery): string {
  const p = updateOf(delivery).payload!;
  if (p.$case === 'statusUpdate')
    return `status:${TaskState[p.value.status!.state].replace('TASK_STATE_', '')}`;
  if (p.$case === 'artifactUpdate') return `artifact:${texts(p.value.artifact!.parts).join('')}`;
  return p.$case;
}

const aConfig = (url: string, taskId = '', extra: Partial<TaskPushNotificationConfig> = {}) => ({
  tenant: '',
  id: '',
  taskId,
  url,
  token: 'receiver-token',
  authentication: { scheme: 'Bearer', credentials: 'push-credentials' },
  ...extra,
});

/** A SendMessage request that also sets a push-notification config on the task it starts. */
function withPush(send: ReturnType<typeof aSend>, config: TaskPushNotificationConfig) {
  return { ...send, configuration: { ...send.configuration, taskPushNotificationConfig: config } };
}

describe('A2A push notifications: a task’s updates are POSTed to the client’s webhook', () => {
  let t: TestApp;
  let client: Client;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  beforeAll(async () => {
    receiver = await webhookReceiver();
    t = await startApp(scriptedYaml(ASK, 'Hello {{name}}', GENERAL));
    client = await a2aClient(t.url);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => (receiver.received.length = 0));
  const at = (path: string) => receiver.received.filter((d) => d.path === path);

  it('the card says push notifications are supported', async () => {
    expect((await client.getAgentCard()).capabilities).toMatchObject({ pushNotifications: true });
  });

  it('a config sent with SendMessage hears each status change, then the output and the end, signed and with its credentials', async () => {
    const send = withPush(aSend(aUserMessage('start')), aConfig(`${receiver.url}/with-send`));
    const task = asTask(await client.sendMessage(send));
    expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
    await eventually(() =>
      expect(at('/with-send').map(labelOf)).toEqual(['status:WORKING', 'status:INPUT_REQUIRED']),
    );

    const done = asTask(await client.sendMessage(aSend(aUserMessage('Ada', task))));
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    await eventually(() =>
      expect(at('/with-send').map(labelOf)).toEqual([
        'status:WORKING',
        'status:INPUT_REQUIRED',
        'status:WORKING',
        'artifact:Hello Ada',
        'status:COMPLETED',
      ]),
    );
    for (const delivery of at('/with-send')) {
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/a2a+json',
        authorization: 'Bearer push-credentials',
        'x-a2a-notification-token': 'receiver-token',
      });
    }
    const last = updateOf(at('/with-send').at(-1)!).payload;
    expect(last).toMatchObject({
      $case: 'statusUpdate',
      value: { taskId: task.id, contextId: task.contextId },
    });
  });

  it('configs are created, read, listed and deleted on a task; a deleted one hears nothing more', async () => {
    const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    const kept = await client.createTaskPushNotificationConfig(aConfig(`${receiver.url}/kept`, task.id));
    expect(kept.id).not.toBe('');
    const dropped = await client.createTaskPushNotificationConfig(
      aConfig(`${receiver.url}/dropped`, task.id, { id: 'mine', token: '', authentication: undefined }),
    );
    expect(dropped).toMatchObject({ id: 'mine', taskId: task.id, url: `${receiver.url}/dropped` });
    expect(
      await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: kept.id }),
    ).toMatchObject({
      url: `${receiver.url}/kept`,
      token: 'receiver-token',
      // The credentials are write-only: read back, only the scheme says they are set.
      authentication: { scheme: 'Bearer', credentials: '' },
    });
    expect(kept.authentication).toEqual({ scheme: 'Bearer', credentials: '' });
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.id).sort()).toEqual([kept.id, 'mine'].sort());
    expect(JSON.stringify(listed)).not.toContain('push-credentials');

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'mine' });
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'mine' }),
    ).rejects.toThrow(/not found/);
    await client.sendMessage(aSend(aUserMessage('Grace', task)));
    await eventually(() => expect(at('/kept').map(labelOf).at(-1)).toBe('status:COMPLETED'));
    expect(at('/kept').map(labelOf)).toEqual(['status:WORKING', 'artifact:Hello Grace', 'status:COMPLETED']);
    expect(at('/dropped')).toEqual([]);
  });

  it('a URL whose host is not allowed, or that is private under general.outbound, is refused (-32602) and starts no task', async () => {
    const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    const refused = async (url: string) => {
      const err = await client
        .createTaskPushNotificationConfig(aConfig(url, task.id))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ envelopeCode: -32602 });
      return (err as Error).message;
    };
    expect(await refused('http://example.com/hook')).toMatch(/not in general\.async\.webhook_allow_hosts/);
    // Listed as a webhook host, but a private address general.outbound does not allow.
    expect(await refused('http://10.1.2.3/hook')).toMatch(/10\.1\.2\.3/);
    expect(await refused(`http://user:pw@127.0.0.1:${receiver.port}/hook`)).toMatch(/credentials/);
    expect(await refused('file:///etc/passwd')).toMatch(/http/);
    const header = aConfig(`${receiver.url}/x`, task.id, {
      authentication: { scheme: 'Bearer', credentials: 'a\r\nX-Injected: 1' },
    });
    await expect(client.createTaskPushNotificationConfig(header)).rejects.toMatchObject({
      envelopeCode: -32602,
    });

    const send = withPush(aSend(aUserMessage('start')), aConfig('http://example.com/hook'));
    await expect(client.sendMessage(send)).rejects.toMatchObject({ envelopeCode: -32602 });
  });

  it('another identity’s task is not found for its push configs', async () => {
    const alice = await a2aClient(t.url, { cookie: 'nat-session=alice' });
    const bob = await a2aClient(t.url, { cookie: 'nat-session=bob' });
    const task = asTask(await alice.sendMessage(aSend(aUserMessage('start'))));
    await alice.createTaskPushNotificationConfig(aConfig(`${receiver.url}/alice`, task.id, { id: 'a' }));
    const notFound = { envelopeCode: -32001 };
    await expect(
      bob.createTaskPushNotificationConfig(aConfig(`${receiver.url}/bob`, task.id)),
    ).rejects.toMatchObject(notFound);
    await expect(
      bob.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'a' }),
    ).rejects.toMatchObject(notFound);
    await expect(
      bob.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }),
    ).rejects.toMatchObject(notFound);
    await expect(
      bob.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'a' }),
    ).rejects.toMatchObject(notFound);
    expect(
      (
        await alice.listTaskPushNotificationConfig({
          tenant: '',
          taskId: task.id,
          pageSize: 0,
          pageToken: '',
        })
      ).configs,
    ).toHaveLength(1);
  });
});
