import { randomBytes, randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { StreamResponse, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { A2aTaskStore } from '../../src/a2a/a2a-task-store';
import { ExecutionStore } from '../../src/executions/store/execution.store';
import { a2aClient, aSend, asTask, aUserMessage, labelOf, stateOf, texts } from '../utils/a2a-client';
import { crash, handOver, startReplicas, type Replicas } from '../utils/replica-apps';
import { ReplicaProcesses } from '../utils/replica-processes';
import type { ReplicaServices } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';
import { verifyStandardWebhook, webhookReceiver, type Delivery } from '../utils/webhook-receiver';

const SECRET = 'whsec_' + Buffer.from('a2a failover secret').toString('base64');
const KEY_VARIABLE = 'INTERLUDE_TEST_A2A_PUSH_KEY';
const LEASE_SECONDS = 2;
/** The lease, a scan, the replay, the workflow's sleep, with room for a slow CI. */
const TAKEOVER_MS = LEASE_SECONDS * 1000 + 2500 + 2000 + 5000;
/** Follows the `executions:` lines of the shared store: the key, then the rest of `general:`. */
const GENERAL = `    token_key_env: ${KEY_VARIABLE}
  async: { webhook_allow_hosts: [127.0.0.1], webhook_secret: '${SECRET}', webhook_backoff_seconds: 0.05 }
  outbound: { allow_hosts: [127.0.0.1] }
`;
const WORKFLOW = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', save_as: name, timeout: 60 }
- sleep: { seconds: 1 }`,
  'Hello {{name}}',
);
const ALICE = { cookie: 'nat-session=alice' };
/** The same settings, for real `interlude serve` processes. */
const PROCESS_GENERAL = {
  executions: { lease_seconds: LEASE_SECONDS, token_key_env: KEY_VARIABLE },
  async: { webhook_allow_hosts: ['127.0.0.1'], webhook_secret: SECRET, webhook_backoff_seconds: 0.05 },
  outbound: { allow_hosts: ['127.0.0.1'] },
};

/** A delivery as a receiver that checks Standard Webhooks signatures reads it. */
const labelOfDelivery = (d: Delivery) => labelOf(StreamResponse.fromJSON(verifyStandardWebhook(SECRET, d)));

async function pushConfigRow(services: ReplicaServices, taskId: string): Promise<string> {
  const client = new PgClient({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ configs: string }>(
      `select configs::text as configs from ${services.schema}.a2a_push_config where task_id = $1`,
      [taskId],
    );
    return rows[0].configs;
  } finally {
    await client.end();
  }
}

/**
 * Push notifications when the replica running a task is lost: the one that takes the execution over
 * delivers its updates from then on, to the configs in PostgreSQL, signed, with their credentials.
 */
requires('postgres')('A2A push notifications across a takeover', () => {
  requires('redis')('on the shared store', () => {
    let replicas: Replicas | undefined;
    let processes: ReplicaProcesses | undefined;
    let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
    beforeAll(async () => {
      process.env[KEY_VARIABLE] = randomBytes(32).toString('base64');
      receiver = await webhookReceiver();
    });
    afterAll(async () => {
      await receiver.close();
      delete process.env[KEY_VARIABLE];
    });
    afterEach(async () => {
      await replicas?.close();
      await processes?.close();
      replicas = processes = undefined;
    });

    const at = (path: string) => receiver.received.filter((d) => d.path === path);
    const aConfig = (path: string): TaskPushNotificationConfig => ({
      tenant: '',
      id: 'hook',
      taskId: '',
      url: `${receiver.url}${path}`,
      token: 'receiver-token',
      authentication: { scheme: 'Bearer', credentials: 'push-credentials' },
    });

    /** On A: a task with a push config, waiting for input; the receiver heard it so far. */
    async function waitingOnA(path: string, urls: string[]) {
      const [a, b] = await Promise.all(urls.map((url) => a2aClient(url, ALICE)));
      const send = aSend(aUserMessage('start', { contextId: randomUUID() }));
      const withPush = {
        ...send,
        configuration: { ...send.configuration, taskPushNotificationConfig: aConfig(path) },
      };
      const task = asTask(await a.sendMessage(withPush));
      expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
      await eventually(() =>
        expect(at(path).map(labelOfDelivery)).toEqual(['status:WORKING', 'status:INPUT_REQUIRED']),
      );
      return { task, b };
    }

    /** What the receiver hears once answered: the rest of the task, once, signed, with the credentials. */
    async function heardTheRest(path: string, taskId: string) {
      await eventually(
        () =>
          expect(at(path).map(labelOfDelivery)).toEqual([
            'status:WORKING',
            'status:INPUT_REQUIRED',
            'status:WORKING',
            'artifact:Hello Ada',
            'status:COMPLETED',
          ]),
        TAKEOVER_MS,
      );
      for (const delivery of at(path)) {
        expect(delivery.headers).toMatchObject({
          'content-type': 'application/a2a+json',
          authorization: 'Bearer push-credentials',
          'x-a2a-notification-token': 'receiver-token',
        });
      }
      const last = StreamResponse.fromJSON(JSON.parse(at(path).at(-1)!.body)).payload;
      expect(last).toMatchObject({ $case: 'statusUpdate', value: { taskId } });
    }

    it('A dies while the task waits for input; answered on B, B delivers the rest and records the context turn', async () => {
      replicas = await startReplicas(2, `${GENERAL}${WORKFLOW}`, { leaseSeconds: LEASE_SECONDS });
      const { task, b } = await waitingOnA('/crash', urlsOf(replicas));
      // The config is in PostgreSQL, its secrets sealed.
      const row = await pushConfigRow(replicas.services, task.id);
      expect(row).toContain(`${receiver.url}/crash`);
      expect(row).not.toContain('push-credentials');
      expect(row).not.toContain('receiver-token');

      crash(replicas.apps[0]);
      const done = asTask(await b.sendMessage(aSend(aUserMessage('Ada', task))));
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      expect(texts(done.artifacts[0].parts).join('')).toBe('Hello Ada');
      await heardTheRest('/crash', task.id);

      const onB = replicas.apps[1].app;
      const owner = (await onB.get(ExecutionStore).peek(task.id))!.ownerId!;
      await eventually(async () =>
        expect(await onB.get(A2aTaskStore).turns(owner, task.contextId)).toEqual([
          { taskId: task.id, user: 'start', answer: 'Hello Ada' },
        ]),
      );
    });

    it('A stops and hands the task over while it waits for input; answered on B, B delivers the rest', async () => {
      // A lease far longer than the test: only the hand-over lets B run it.
      replicas = await startReplicas(2, `${GENERAL}${WORKFLOW}`, { leaseSeconds: 60 });
      const { task, b } = await waitingOnA('/handover', urlsOf(replicas));
      await handOver(replicas.apps[0]);
      const done = asTask(await b.sendMessage(aSend(aUserMessage('Ada', task))));
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      await heardTheRest('/handover', task.id);
    });

    it('on real processes: A is killed (SIGKILL) while the task waits for input; answered on B, B delivers the rest', async () => {
      processes = await ReplicaProcesses.start(2, WORKFLOW, {
        general: PROCESS_GENERAL,
        env: { [KEY_VARIABLE]: process.env[KEY_VARIABLE] },
      });
      const { task, b } = await waitingOnA('/killed', [processes.url(0), processes.url(1)]);
      expect((await processes.kill(0, 'SIGKILL')).signal).toBe('SIGKILL');
      const done = asTask(await b.sendMessage(aSend(aUserMessage('Ada', task))));
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      await heardTheRest('/killed', task.id);
    });
  });
});

const urlsOf = (replicas: Replicas) => replicas.apps.map((app) => app.url);
