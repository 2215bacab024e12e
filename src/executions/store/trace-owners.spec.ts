import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { requires } from '../../../test/utils/requires';
import { ReplicaServices } from '../../../test/utils/replica-services';
import type { ServerConfig } from '../../config/server-config';
import { Database } from '../../db/database';
import { TraceOwnerRetention } from './trace-owner-retention';
import { TraceOwners } from './trace-owners';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-06-01T12:00:00.000Z');

/** Lets every promise and I/O callback run, but no timer (fake timers hold the batch back). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

const aRetentionOf = (days: number) =>
  ({ general: { feedback: { trace_owner_retention_days: days } } }) as ServerConfig;

async function ownersInTable(database: Database): Promise<Record<string, string>> {
  const rows = await database.db
    .selectFrom('trace_owner')
    .select(['observability_trace_id', 'owner_id'])
    .execute();
  return Object.fromEntries(rows.map((r) => [r.observability_trace_id, r.owner_id]));
}

async function insertOwners(database: Database, count: number, createdAt: number, prefix: string) {
  const rows = Array.from({ length: count }, (_, i) => ({
    observability_trace_id: `${prefix}-${i}`,
    owner_id: 'alice',
    created_at: new Date(createdAt).toISOString(),
  }));
  for (let i = 0; i < rows.length; i += 200) {
    await database.db
      .insertInto('trace_owner')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

function traceOwnerSuite(dialect: string, open: () => Promise<Database>) {
  describe(`trace owners (${dialect})`, () => {
    let database: Database;
    beforeEach(async () => {
      database = await open();
      await sql`delete from trace_owner`.execute(database.db);
    });
    afterEach(() => jest.useRealTimers());

    describe('recorded in batches', () => {
      beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));

      it('an owner waits for its batch, yet ownerOf already answers with it', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', 'alice');
        owners.record('t2', 'bob');
        await settle();
        expect(await ownersInTable(database)).toEqual({});
        expect(await owners.ownerOf('t1')).toBe('alice');
        // Asking wrote the whole batch, in one go.
        expect(await ownersInTable(database)).toEqual({ t1: 'alice', t2: 'bob' });
      });

      it('the batch is written a few milliseconds later without anyone asking', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', 'alice');
        jest.advanceTimersByTime(1000);
        await owners.flush();
        expect(await ownersInTable(database)).toEqual({ t1: 'alice' });
      });

      it('the first owner of a trace wins, within a batch and across batches', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', 'alice');
        owners.record('t1', 'bob');
        await owners.flush();
        owners.record('t1', 'carol');
        expect(await owners.ownerOf('t1')).toBe('alice');
      });

      it('an anonymous trace adds no row and stays open', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', null);
        await owners.flush();
        expect(await ownersInTable(database)).toEqual({});
        expect(await owners.ownerOf('t1')).toBeUndefined();
      });

      it('a full batch is written at once, without waiting for the timer', async () => {
        const owners = new TraceOwners(database);
        for (let i = 0; i < 600; i++) owners.record(`t${i}`, 'alice');
        const deadline = Date.now() + 5000;
        let written = 0;
        while (written < 500 && Date.now() < deadline) {
          await settle();
          written = Object.keys(await ownersInTable(database)).length;
        }
        // Two full batches; the last 100 wait for the timer.
        await settle();
        expect(Object.keys(await ownersInTable(database))).toHaveLength(500);
      });

      it('what is buffered is written when the application shuts down', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', 'alice');
        await owners.beforeApplicationShutdown();
        expect(await ownersInTable(database)).toEqual({ t1: 'alice' });
      });
    });

    describe('pruned after the retention', () => {
      it('rows older than the retention are deleted in bounded batches; recent ones are kept', async () => {
        await insertOwners(database, 2500, NOW - 91 * DAY_MS, 'old');
        await insertOwners(database, 3, NOW - 89 * DAY_MS, 'recent');
        const retention = new TraceOwnerRetention(database, aRetentionOf(90));
        expect(await retention.prune(NOW)).toBe(2500);
        expect(Object.keys(await ownersInTable(database)).sort()).toEqual([
          'recent-0',
          'recent-1',
          'recent-2',
        ]);
      });

      it('a retention of 0 keeps every row', async () => {
        await insertOwners(database, 3, NOW - 3650 * DAY_MS, 'old');
        const retention = new TraceOwnerRetention(database, aRetentionOf(0));
        expect(await retention.prune(NOW)).toBe(0);
        expect(Object.keys(await ownersInTable(database))).toHaveLength(3);
      });

      it('a pruned trace is unknown again', async () => {
        const owners = new TraceOwners(database);
        owners.record('t1', 'alice');
        await owners.flush();
        await new TraceOwnerRetention(database, aRetentionOf(1)).prune(Date.now() + 2 * DAY_MS);
        expect(await owners.ownerOf('t1')).toBeUndefined();
      });
    });
  });
}

traceOwnerSuite('sqlite', () => Database.open('sqlite::memory:'));

requires('postgres')('trace owners on PostgreSQL', () => {
  const services = new ReplicaServices();
  let shared: Promise<Database> | undefined;
  afterAll(() => services.cleanup());
  traceOwnerSuite('postgres', () => (shared ??= services.database()));
});

describe('trace owners when the database fails', () => {
  it('workflows go on, and the outage is logged once, not once a batch', async () => {
    const database = await Database.open('sqlite::memory:');
    await database.close();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const owners = new TraceOwners(database);
      owners.record('t1', 'alice');
      await owners.flush();
      owners.record('t2', 'alice');
      await owners.flush();
      expect(error).toHaveBeenCalledTimes(1);
      expect(String(error.mock.calls[0]![0])).toContain('Could not record the owners of 1 traces');
    } finally {
      error.mockRestore();
    }
  });
});
