import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import type { Database } from '../db/database';
import { PostgresExecutionStore } from '../executions/store/postgres-execution.store';
import { TokenCipher } from '../oauth/token-cipher';
import { a2aTaskStoreContract } from './a2a-task-store.contract';
import { PostgresA2aTaskStore } from './postgres-a2a-task-store';

requires('postgres')('Postgres A2A task store', () => {
  const services = new ReplicaServices();
  let database: Promise<Database> | undefined;
  const shared = () => (database ??= services.database());
  const cipher = new TokenCipher(randomBytes(32));
  afterAll(() => services.cleanup());

  a2aTaskStoreContract('postgres', async () => {
    let now = Date.now();
    const clock = () => now;
    const { db } = await shared();
    // Another process: a pool of its own over the same schema, with the same key.
    const other = new PostgresA2aTaskStore((await services.database()).db, cipher, clock);
    return {
      store: new PostgresA2aTaskStore(db, cipher, clock),
      other,
      setNow: (ms) => (now = ms),
      recordTask: async (id) => {
        const record = { id, traceId: 't', ownerId: null, workflow: 'echo', status: 'running' as const };
        await new PostgresExecutionStore(db).create({
          ...record,
          interactive: true,
          createdAt: now,
          updatedAt: now,
          interactions: {},
        });
      },
    };
  });

  describe('push config secrets at rest', () => {
    const config = {
      id: 'c',
      url: 'https://hooks.example.com/x',
      token: 'the-receiver-token',
      authentication: { scheme: 'Bearer', credentials: 'the-push-credentials' },
    };
    const rowOf = async (taskId: string) => {
      const { db } = await shared();
      const { rows } = await sql<{ configs: string }>`select configs::text as configs
        from a2a_push_config where task_id = ${taskId}`.execute(db);
      return rows[0].configs;
    };

    it('the row holds neither the credentials nor the token; the store reads both back', async () => {
      const store = new PostgresA2aTaskStore((await shared()).db, cipher);
      const task = randomUUID();
      await store.savePushConfig(task, config);
      const row = await rowOf(task);
      expect(row).toContain('hooks.example.com');
      expect(row).not.toContain('the-push-credentials');
      expect(row).not.toContain('the-receiver-token');
      expect(await store.pushConfigs(task)).toEqual([config]);
    });

    it('read with another key, or moved onto another task, a config keeps its URL and loses its secrets', async () => {
      const { db } = await shared();
      const task = randomUUID();
      await new PostgresA2aTaskStore(db, cipher).savePushConfig(task, config);
      const stripped = { ...config, token: '', authentication: { scheme: 'Bearer', credentials: '' } };
      const rotated = new PostgresA2aTaskStore(db, new TokenCipher(randomBytes(32)));
      expect(await rotated.pushConfigs(task)).toEqual([stripped]);
      const moved = randomUUID();
      await sql`insert into a2a_push_config (task_id, configs)
        select ${moved}, configs from a2a_push_config where task_id = ${task}`.execute(db);
      expect(await new PostgresA2aTaskStore(db, cipher).pushConfigs(moved)).toEqual([stripped]);
    });

    it('without a key it keeps no secrets, and says so', async () => {
      const store = new PostgresA2aTaskStore((await shared()).db);
      expect(store.keepsSecrets).toBe(false);
      await expect(store.savePushConfig(randomUUID(), config)).rejects.toThrow('without a key');
      const plain = { id: 'p', url: config.url, token: '' };
      const task = randomUUID();
      await store.savePushConfig(task, plain);
      expect(await store.pushConfigs(task)).toEqual([plain]);
    });
  });
});
