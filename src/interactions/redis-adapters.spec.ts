import { requires } from '../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../test/utils/replica-services';
import { TcpProxy } from '../../test/utils/tcp-proxy';
import { interactionBrokerContract } from './interaction-broker.contract';
import type { BackingRedis } from '../redis/backing-redis';
import { RedisAudience } from '../redis/redis-audience';
import { answerOf } from './interaction.broker';
import { RedisInteractionBroker } from './redis-interaction.broker';

/** A replica's broker, on its own audience of the executions (as the Redis module provides it). */
const opened = (redis: BackingRedis) =>
  RedisInteractionBroker.create(redis, new RedisAudience(redis, 'executions'));

requires('redis')('Redis interaction broker', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  let prefix = '';
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    proxy?.heal();
    await proxy?.close();
    proxy = undefined;
  });

  interactionBrokerContract(
    'redis',
    async () => {
      prefix = services.newPrefix();
      return opened(await services.redis(prefix));
    },
    async () => opened(await services.redis(prefix)),
  );

  it('a wake-up leaves after what the answering turn sends (its 204), and before what the client sends next', async () => {
    prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const broker = await opened(redis);
    // Another process waiting on the execution: it hears its channel in the order Redis took the messages.
    const heard: string[] = [];
    const waiting = new RedisAudience(await services.redis(prefix), 'executions');
    const options = { name: 'interaction-answers', maxChars: 1024, logger: console, what: 'wake-up' };
    await waiting.listen(options, (message) =>
      heard.push((message as { interactionId: string }).interactionId),
    );
    await waiting.join('e1');
    const channel = `${prefix}executions:interaction-answers:to:${waiting.me}`;
    // The answering turn: the answer is accepted, then its reply is written (here: a message of its own).
    await broker.deliver('e1', 'waits-elsewhere', { type: 'text', text: 'Ann' });
    await redis.client.publish(channel, JSON.stringify({ interactionId: 'reply in the same turn' }));
    // What the client does once it saw the reply arrives as I/O: a later turn.
    await redis.client.ping();
    await redis.client.publish(channel, JSON.stringify({ interactionId: 'next request' }));
    await waitFor('three messages', async () => (heard.length === 3 ? heard : undefined));
    expect(heard).toEqual(['reply in the same turn', 'waits-elsewhere', 'next request']);
  });

  it('an answer wakes only the replicas whose workflows wait on its execution; the replica answering does not join', async () => {
    prefix = services.newPrefix();
    const [a, b, c] = [
      await opened(await services.redis(prefix)),
      await opened(await services.redis(prefix)),
      await opened(await services.redis(prefix)),
    ];
    const onA = answerOf(a, 'e1', 'i1');
    const onC = answerOf(c, 'e2', 'i2');
    await Promise.all([onA.listening, onC.listening]);
    await b.deliver('e1', 'i1', { type: 'text', text: 'Ann' });
    await expect(onA.answer).resolves.toEqual({ type: 'text', text: 'Ann' });
    const redis = await services.redis(prefix);
    const members = async (executionId: string) =>
      (await redis.client.hkeys(`${prefix}executions:audience:{${executionId}}`)).filter(
        (field) => field !== '@',
      );
    expect(await members('e1')).toHaveLength(1);
    expect(await members('e2')).toHaveLength(1);
    expect(await members('e1')).not.toEqual(await members('e2'));
  });

  it('a wait whose join Redis took late (its prompt may have been answered before) takes the answer from the record', async () => {
    prefix = services.newPrefix();
    const url = new URL(services.redisUrl);
    proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379));
    const a = await opened(await services.redis(prefix, proxy.via(services.redisUrl)));
    const b = await opened(await services.redis(prefix));
    const answer = { type: 'text' as const, text: 'Ann' };
    const record: { answer?: typeof answer } = {};
    proxy.delay(400);
    const woken = new Promise((answered, abandoned) => {
      void a.wait('i1', { executionId: 'e1', answered, abandoned, recorded: async () => record.answer });
    });
    // Accepted (recorded) and sent while A's join is still on its way: Redis tells nobody.
    record.answer = answer;
    await b.deliver('e1', 'i1', answer);
    await expect(woken).resolves.toEqual(answer);
  });
});
