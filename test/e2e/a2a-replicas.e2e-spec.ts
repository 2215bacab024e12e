import { randomUUID } from 'node:crypto';
import { StreamResponse, TaskState } from '@a2a-js/sdk';
import { A2aTaskStore } from '../../src/a2a/a2a-task-store';
import { ExecutionStore } from '../../src/executions/store/execution.store';
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
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';
import { webhookReceiver } from '../utils/webhook-receiver';

/** Follows the shared store's `executions:` lines: a key variable nobody sets (no push secrets kept). */
const GENERAL = `    token_key_env: INTERLUDE_TEST_UNSET_PUSH_KEY
  async: { webhook_allow_hosts: [127.0.0.1] }
  outbound: { allow_hosts: [127.0.0.1] }
`;
const WORKFLOW = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', save_as: name, timeout: 60 }
- sleep: { seconds: 1 }`,
  'Hello {{name}}',
);
const ALICE = { cookie: 'nat-session=alice' };

requires('postgres')('A2A across replicas', () => {
  requires('redis')('on the shared store', () => {
    let replicas: Replicas;
    let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
    beforeAll(async () => {
      receiver = await webhookReceiver();
      replicas = await startReplicas(2, `${GENERAL}${WORKFLOW}`);
    });
    afterAll(async () => {
      await replicas.close();
      await receiver.close();
    });
    const clients = () => Promise.all(replicas.apps.map((app) => a2aClient(app.url, ALICE)));

    it('a task started on A is read, subscribed to and answered on B; a push config set on B hears it all', async () => {
      const [a, b] = await clients();
      const task = asTask(await a.sendMessage(aSend(aUserMessage('start'))));
      expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');

      const read = await b.getTask({ tenant: '', id: task.id });
      expect(stateOf(read)).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(texts(read.status!.message!.parts)).toEqual(['Your name?']);
      await b.createTaskPushNotificationConfig({
        tenant: '',
        id: 'b',
        taskId: task.id,
        url: `${receiver.url}/replicas`,
        token: '',
        authentication: undefined,
      });

      const stream = b.resubscribeTask({ tenant: '', id: task.id });
      const first = (await stream.next()).value!;
      const answered = asTask(await b.sendMessage(aSend(aUserMessage('Ada', task))));
      expect(stateOf(answered)).toBe('TASK_STATE_COMPLETED');
      expect(texts(answered.artifacts[0].parts).join('')).toBe('Hello Ada');
      const followed = [first, ...(await collect(stream))].map(labelOf);
      expect(followed[0]).toBe('task:INPUT_REQUIRED');
      expect(followed.at(-1)).toBe('status:COMPLETED');

      expect(stateOf(await a.getTask({ tenant: '', id: task.id }))).toBe('TASK_STATE_COMPLETED');
      // A runs the task: it delivers what the config set on B asks for, from then on. A reads a task's
      // configs when each update's turn comes, so the question it queued as the task started reaches
      // the config too when that turn came after B saved it (a loaded machine): then it comes first.
      await eventually(() => {
        const labels = receiver.received.map((d) => labelOf(StreamResponse.fromJSON(JSON.parse(d.body))));
        const after = labels[0] === 'status:INPUT_REQUIRED' ? labels.slice(1) : labels;
        expect(after).toEqual(['status:WORKING', 'artifact:Hello Ada', 'status:COMPLETED']);
      });
    });

    it('without the key that seals them, a push config with credentials or a token is refused (-32004)', async () => {
      const [a] = await clients();
      const task = asTask(await a.sendMessage(aSend(aUserMessage('start'))));
      const config = { tenant: '', id: '', taskId: task.id, url: `${receiver.url}/secret`, token: '' };
      const withCredentials = { ...config, authentication: { scheme: 'Bearer', credentials: 'c' } };
      const withToken = { ...config, token: 't', authentication: undefined };
      for (const refused of [withCredentials, withToken]) {
        const err = await a.createTaskPushNotificationConfig(refused).catch((e: unknown) => e);
        expect(err).toMatchObject({ envelopeCode: -32004 });
        expect((err as Error).message).toMatch(/general\.executions\.token_key_env/);
      }
      await a.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    });

    it('a task started on A is canceled on B, and its execution stops', async () => {
      const [a, b] = await clients();
      const task = asTask(await a.sendMessage(aSend(aUserMessage('start'))));
      const canceled = await b.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
      await eventually(async () =>
        expect(stateOf(await a.getTask({ tenant: '', id: task.id }))).toBe('TASK_STATE_CANCELED'),
      );
    });

    it('a context started on A continues on B: B reads its turns (and A’s answer) from the shared store', async () => {
      const [a, b] = await clients();
      const contextId = randomUUID();
      const first = asTask(await a.sendMessage(aSend(aUserMessage('first', { contextId }))));
      await a.sendMessage(aSend(aUserMessage('Ada', first)));
      const store = replicas.apps[1].app.get(A2aTaskStore);
      // A context is its owner's: the user id the server gave Alice's session.
      const owner = (await replicas.apps[1].app.get(ExecutionStore).peek(first.id))!.ownerId!;
      await eventually(async () =>
        expect(await store.turns(owner, contextId)).toEqual([
          { taskId: first.id, user: 'first', answer: 'Hello Ada' },
        ]),
      );
      const second = asTask(await b.sendMessage(aSend(aUserMessage('second', { contextId }))));
      expect(second.contextId).toBe(contextId);
      await b.sendMessage(aSend(aUserMessage('Grace', second)));
      await eventually(async () =>
        expect((await store.turns(owner, contextId)).map((turn) => turn.answer)).toEqual([
          'Hello Ada',
          'Hello Grace',
        ]),
      );
    });
  });
});
