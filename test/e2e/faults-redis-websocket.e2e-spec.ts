import { holdMachineLock } from '../utils/machine-lock';
import { OwnRedis } from '../utils/own-redis';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { scriptedYaml } from '../utils/test-app';
import { START_MS, WAIT_MS } from '../utils/timing';
import { reply, userMessage, WsClient, type WsMessage } from '../utils/ws-client';

/**
 * WebSocket conversations across a Redis restarted empty (issue 31, point 1: conversation links are
 * re-established without a restart of any replica). Which execution a user's conversation runs is
 * kept in Redis, for a client that reconnects to another replica with `?conversation_id=`; a Redis
 * that comes back empty has lost it, and the replica holding the run writes it again. A redis-server
 * of the test's own, killed and started again. Needs `npm run build`.
 */
const WORKFLOW = scriptedYaml(
  `- stream: { text: 'asking ' }
- prompt: { input_type: text, text: 'Your name?', timeout: 120, save_as: name }
- stream: { text: 'thanks ' }`,
  'hello {{name}} ({{input}})',
);
/** Long enough for the replica holding the run to write its link again once Redis is back. */
const RELINK_MS = 15_000;

/** The text a WebSocket run showed after a prompt. */
const shownText = (messages: WsMessage[]) =>
  messages
    .filter((m) => m.type === 'system_response_message' && m.status === 'in_progress')
    .map((m) => m.content.text)
    .join('');

requires('postgres')('WebSocket conversations while Redis restarts empty', () => {
  holdMachineLock('postgres-heavy');
  let redis: OwnRedis;
  let set: ReplicaProcesses;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    redis = await OwnRedis.start();
    set = await ReplicaProcesses.start(2, WORKFLOW, {
      // Long enough that a loaded machine's stall does not fence replica 0 (it would close its sockets
      // with 1012 and hand the runs over): nothing here needs a run taken over.
      general: { executions: { lease_seconds: 5 } },
      redisUrl: () => redis.url,
    });
  }, 3 * START_MS);

  afterAll(async () => {
    for (const client of clients) client.close();
    await set?.close();
    await redis?.down();
  });

  async function connect(replica: number, query: Record<string, string>): Promise<WsClient> {
    const client = await WsClient.connect(set.url(replica), query);
    clients.push(client);
    return client;
  }

  /** Starts a conversation on replica 0 and waits for its prompt (the socket stays open). */
  async function askedOn0(user: string, conversation: string) {
    const client = await connect(0, { session: user });
    client.send(userMessage(user, { id: `u-${conversation}`, conversation_id: conversation }));
    const seen = await client.until((m) => m.type === 'system_interaction_message');
    const asked = seen.at(-1)!;
    expect(asked.content).toMatchObject({ text: 'Your name?' });
    return { client, asked };
  }

  async function ready(to: number): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while ((await set.request('GET', '/health/ready', { to })).status !== 200) {
      if (Date.now() > deadline) throw new Error(`replica ${to} not ready\n${set.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Reconnects to replica 1 with `?conversation_id=` until it shows the pending prompt (read from the
   * record once replaying the lost event log gives up, within 3 s).
   */
  async function promptOn1(user: string, conversation: string) {
    const deadline = Date.now() + RELINK_MS;
    for (;;) {
      const client = await connect(1, { session: user, conversation_id: conversation });
      try {
        return { client, prompt: await client.next(5000) };
      } catch (err) {
        client.close();
        if (Date.now() > deadline)
          throw new Error(`no prompt on replica 1: ${String(err)}\n${set.output()}`, { cause: err });
      }
    }
  }

  it(
    'a conversation waiting on a prompt is answered over its own socket, and another is taken over on the other replica and answered there',
    async () => {
      const same = await askedOn0('rita', 'conv-same');
      const moved = await askedOn0('sam', 'conv-move');
      moved.client.close();
      await moved.client.closed;

      await redis.down();
      await redis.up();
      for (const to of [0, 1]) await ready(to);

      // Over the socket it was asked on: the answer reaches the run, which completes.
      same.client.send(reply('Rita', { conversation_id: 'conv-same' }));
      const rest = await same.client.run(WAIT_MS);
      expect(shownText(rest)).toBe('thanks hello Rita (rita)');

      // Reconnected to the other replica: the conversation's run is found (its link was written again
      // by replica 0), its prompt shown with the time it has left, and the answer given there completes it.
      const { client: onB, prompt } = await promptOn1('sam', 'conv-move');
      expect(prompt).toMatchObject({
        type: 'system_interaction_message',
        id: moved.asked.id,
        parent_id: 'u-conv-move',
        conversation_id: 'conv-move',
        content: { text: 'Your name?' },
      });
      expect(prompt.content.timeout).toBeLessThanOrEqual(120);
      onB.send(reply('Sam', { conversation_id: 'conv-move' }));
      const restOnB = await onB.run(WAIT_MS);
      expect(shownText(restOnB)).toBe('thanks hello Sam (sam)');
      expect(restOnB.at(-2)).toMatchObject({ type: 'system_response_message', status: 'complete' });
      expect(set.exited()).toEqual([]);
    },
    6 * START_MS,
  );
});
