import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { requires } from '../../test/utils/requires';
import { Database } from '../db/database';
import type { Identity } from '../core/identity/identity';
import { JobStore } from './job.store';

const ALICE: Identity = { userId: 'alice', source: 'cookie', claims: {} };
const BOB: Identity = { userId: 'bob', source: 'cookie', claims: {} };
const newJob = (jobId: string, identity = ALICE) => ({
  kind: 'workflow' as const,
  jobId,
  identity,
  input: { message: jobId },
  expirySeconds: 600,
});

/** The same behaviour on every database the server supports. */
function jobStoreBehaviour(open: () => Promise<{ database: Database; drop(): Promise<void> }>) {
  let database: Database;
  let drop: () => Promise<void>;
  let store: JobStore;
  beforeAll(async () => {
    ({ database, drop } = await open());
    store = new JobStore(database);
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('a job_id submitted 10 times at once makes one row; each caller learns which one', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.insertOrGet(newJob('same'))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
  });

  it('job_ids are per owner', async () => {
    const a = await store.insertOrGet(newJob('mine'));
    const b = await store.insertOrGet(newJob('mine', BOB));
    expect([a.created, b.created]).toEqual([true, true]);
    expect((await store.find('workflow', BOB, 'mine'))?.id).toBe(b.job.id);
    expect(await store.find('evaluation', ALICE, 'mine')).toBeUndefined();
  });

  it('the first final status wins; later ones change nothing', async () => {
    const { job } = await store.insertOrGet(newJob('race'));
    expect(await store.start(job.id)).toBe(true);
    const ends = await Promise.all([
      store.finish(job.id, { status: 'interrupted', error: 'cancelled' }),
      store.finish(job.id, { status: 'success', output: { value: 1 } }),
    ]);
    expect(ends.filter(Boolean)).toHaveLength(1);
    const final = await store.get(job.id);
    expect(['interrupted', 'success']).toContain(final?.status);
    expect(await store.finish(job.id, { status: 'failure', error: 'late' })).toBeUndefined();
    expect(await store.start(job.id)).toBe(false);
    expect(await store.pause(job.id, null)).toBe(false);
    expect((await store.get(job.id))?.status).toBe(final?.status);
  });

  it('a job whose runner died can be started again, and counts its attempts', async () => {
    const { job } = await store.insertOrGet(newJob('rerun'));
    expect(await store.start(job.id)).toBe(true);
    expect(await store.start(job.id)).toBe(true);
    expect((await store.get(job.id))?.attempts).toBe(2);
  });

  it('expiry drops the output of ended jobs past expires_at only', async () => {
    const { job } = await store.insertOrGet(newJob('old'));
    const ended = await store.finish(job.id, { status: 'success', output: { value: 'x' } });
    const at = Date.parse(ended!.expiresAt!);
    await store.expire(new Date(at - 1));
    expect((await store.get(job.id))?.output).toEqual({ value: 'x' });
    await store.expire(new Date(at));
    expect(await store.get(job.id)).toMatchObject({ status: 'success', output: null });
  });
}

describe('JobStore on SQLite', () =>
  jobStoreBehaviour(async () => ({
    database: await Database.open('sqlite::memory:'),
    drop: async () => {},
  })));

requires('postgres')('JobStore on PostgreSQL', () =>
  jobStoreBehaviour(async () => {
    const schema = `jobstore_spec_${randomBytes(5).toString('hex')}`;
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('schema', schema);
    return {
      database: await Database.open(url.toString()),
      drop: async () => {
        const client = new Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      },
    };
  }),
);
