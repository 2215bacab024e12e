import { requires } from '../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../test/utils/replica-services';
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
    // Another process's subscriber: it hears the channel in the order Redis took the messages.
    const listener = await services.redis(prefix);
    const heard: string[] = [];
    await listener.subscribe(channel, (message) => heard.push(JSON.parse(message).interactionId));
    // The answering turn: the answer is accepted, then its reply is written (here: a message of its own).
    await broker.deliver('waits-elsewhere', { type: 'text', text: 'Ann' });
    await redis.client.publish(channel, JSON.stringify({ interactionId: 'reply in the same turn' }));
    // What the client does once it saw the reply arrives as I/O: a later turn.
    await redis.client.ping();
    await redis.client.publish(channel, JSON.stringify({ interactionId: 'next request' }));
    await waitFor('three messages', async () => (heard.length === 3 ? heard : undefined));
    expect(heard).toEqual(['reply in the same turn', 'waits-elsewhere', 'next request']);
  });
});
