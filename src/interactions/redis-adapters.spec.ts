import { Redis } from 'ioredis';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { interactionBrokerContract } from './interaction-broker.contract';
import { RedisInteractionBroker } from './redis-interaction.broker';

requires('redis')('Redis interaction broker', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  let prefix = '';

  interactionBrokerContract(
    'redis',
    async () => {
      prefix = services.newPrefix();
      return RedisInteractionBroker.create(await services.redis(prefix));
    },
    async () => RedisInteractionBroker.create(await services.redis(prefix)),
  );

  it('a wake-up leaves after what the answering turn sends (its 204), and before what the client sends next', async () => {
    prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const broker = await RedisInteractionBroker.create(redis);
    const channel = `${prefix}interaction-answers`;
    const listener = new Redis(services.redisUrl);
    const heard: string[] = [];
    listener.on('message', (_channel, message: string) => heard.push(JSON.parse(message).interactionId));
    await listener.subscribe(channel);
    try {
      // The answering turn: the answer is accepted, then its reply is written (here: a message of its own).
      await broker.deliver('waits-elsewhere', { type: 'text', text: 'Ann' });
      await redis.client.publish(channel, JSON.stringify({ interactionId: 'reply in the same turn' }));
      // What the client does once it saw the reply arrives as I/O: a later turn.
      await redis.client.ping();
      await redis.client.publish(channel, JSON.stringify({ interactionId: 'next request' }));
      await waitFor(() => heard.length === 3);
      expect(heard).toEqual(['reply in the same turn', 'waits-elsewhere', 'next request']);
    } finally {
      listener.disconnect();
    }
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}
