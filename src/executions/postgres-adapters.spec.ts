import { sql } from 'kysely';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import type { Database } from '../db/database';
import { executionStoreContract } from './execution-store.contract';
import { PostgresExecutionStore } from './postgres-execution.store';
import { journalContract } from './journal.contract';
import { PostgresJournal } from './postgres-journal';

requires('postgres')('Postgres execution store', () => {
  const services = new ReplicaServices();
  let database: Promise<Database> | undefined;
  const shared = () => (database ??= services.database());
  afterAll(() => services.cleanup());

  executionStoreContract(
    'postgres',
    async () => {
      const { db } = await shared();
      await sql`delete from execution_record`.execute(db);
      return new PostgresExecutionStore(db);
    },
    // Another process: a pool of its own over the same schema.
    async () => new PostgresExecutionStore((await services.database()).db),
  );

  journalContract(
    'postgres',
    async () => new PostgresJournal((await shared()).db),
    async () => new PostgresJournal((await services.database()).db),
  );
});
