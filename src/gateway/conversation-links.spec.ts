import { BackingRedis } from '../redis/backing-redis';
import { deleteKeys } from '../../test/utils/replica-services';
import { requires } from '../../test/utils/requires';
import { MemoryConversationLinks, type ConversationLink, type ConversationLinks } from './conversation-links';
import { RedisConversationLinks } from './redis-conversation-links';

const aLink = (executionId: string): ConversationLink => ({
  executionId,
  parentId: 'u-1',
  schema: 'chat_stream',
  delivered: 0,
  attachedAt: 1000,
});

/** What every ConversationLinks adapter does. */
function linkContract(make: () => Promise<ConversationLinks>): void {
  it('keeps a link per user and conversation: another user’s same conversation id is another link', async () => {
    const links = await make();
    await links.set('alice', 'c', aLink('e-1'));
    expect(await links.get('alice', 'c')).toEqual(aLink('e-1'));
    expect(await links.get('bob', 'c')).toBeUndefined();
    expect(await links.get('alice', 'other')).toBeUndefined();
  });

  it('updates and removes only the link of the execution named (a newer run keeps its own)', async () => {
    const links = await make();
    await links.set('alice', 'c', aLink('e-1'));
    await links.update('alice', 'c', 'e-1', { delivered: 4, attachedAt: 2000 });
    expect(await links.get('alice', 'c')).toMatchObject({ delivered: 4, attachedAt: 2000 });
    await links.set('alice', 'c', aLink('e-2'));
    await links.update('alice', 'c', 'e-1', { delivered: 9 });
    await links.remove('alice', 'c', 'e-1');
    expect(await links.get('alice', 'c')).toEqual(aLink('e-2'));
    await links.remove('alice', 'c', 'e-2');
    expect(await links.get('alice', 'c')).toBeUndefined();
  });

  it('restores a link only where the conversation has none (a newer run’s link stays)', async () => {
    const links = await make();
    expect(await links.restore('carol', 'c', { ...aLink('e-4'), delivered: 7 })).toBe(true);
    expect(await links.get('carol', 'c')).toEqual({ ...aLink('e-4'), delivered: 7 });
    await links.set('carol', 'c', aLink('e-5'));
    expect(await links.restore('carol', 'c', aLink('e-4'))).toBe(false);
    expect(await links.get('carol', 'c')).toEqual(aLink('e-5'));
  });

  it('a very long conversation id is a key like any other', async () => {
    const links = await make();
    const long = 'x'.repeat(100_000);
    await links.set('alice', long, aLink('e-3'));
    expect(await links.get('alice', long)).toEqual(aLink('e-3'));
    expect(await links.get('alice', long.slice(1))).toBeUndefined();
  });
}

describe('ConversationLinks in memory', () => {
  linkContract(async () => new MemoryConversationLinks());
});

requires('redis')('ConversationLinks in Redis (replicas share them)', () => {
  const prefix = `interlude-test:links-${process.pid}-${Date.now()}:`;
  let redis: BackingRedis;
  beforeAll(async () => (redis = await BackingRedis.open(process.env.REDIS_URL!, prefix)));
  afterAll(async () => {
    await redis.close();
    await deleteKeys(process.env.REDIS_URL!, `${prefix}*`);
  });
  linkContract(async () => new RedisConversationLinks(redis));
});
