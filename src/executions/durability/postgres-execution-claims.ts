import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Tables } from '../../db/tables';
import { fromJson } from '../../db/json-columns';
import type { StoredRunSpec } from '../model/run-spec';
import { dbNowMs } from './postgres-replica-leases';

/** An execution this replica now owns, with what re-running it takes. */
export interface ClaimedRun {
  id: string;
  /** What the record does not hold already (`specWith` makes it whole). */
  spec: StoredRunSpec;
  /** The claim's fencing token: the run's journal is written only while the record holds this epoch. */
  epoch: number;
}

const TERMINAL = ['completed', 'failed'];

/**
 * Which replica runs each durable execution (the `replica` column of its record), and under which
 * epoch. A claim is a compare-and-set on that column that increments the epoch: of replicas claiming
 * the same orphan, one gets it, and the one it was taken from can no longer journal anything for it.
 */
export class PostgresExecutionClaims {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Takes up to `limit` unended executions whose replica's lease has run out (or that were released)
   * for `replica`, never its own, and only while `replica`'s own lease holds: a replica whose lease ran
   * out is itself presumed dead, and what it took would be an orphan again at once.
   */
  async claim(replica: string, limit: number): Promise<ClaimedRun[]> {
    const live = this.db.selectFrom('replica_lease').select('replica').where('expires_at', '>', dbNowMs());
    const orphaned = this.db
      .selectFrom('execution_record')
      .select('id')
      .where(({ exists }) => exists(live.where('replica', '=', replica)))
      .where('run_spec', 'is not', null)
      .where('status', 'not in', TERMINAL)
      .where((eb) =>
        eb.or([
          eb('replica', 'is', null),
          eb.and([eb('replica', '<>', replica), eb('replica', 'not in', live)]),
        ]),
      )
      .limit(limit)
      .forUpdate()
      .skipLocked();
    return this.take(replica, orphaned);
  }

  /**
   * Takes back executions `replica` stopped running when it could not renew its lease (self-fenced),
   * unless another replica claimed them meanwhile; each under a new epoch.
   */
  async reclaim(replica: string, ids: string[]): Promise<ClaimedRun[]> {
    if (!ids.length) return [];
    const own = this.db
      .selectFrom('execution_record')
      .select('id')
      .where('id', 'in', ids)
      .where('replica', '=', replica)
      .where('run_spec', 'is not', null)
      .where('status', 'not in', TERMINAL)
      .forUpdate()
      .skipLocked();
    return this.take(replica, own);
  }

  private async take(
    replica: string,
    ids: SelectQueryBuilder<Tables, 'execution_record', { id: string }>,
  ): Promise<ClaimedRun[]> {
    const rows = await this.db
      .updateTable('execution_record')
      .set({ replica, epoch: sql<number>`epoch + 1` as unknown as number })
      .where('id', 'in', ids)
      .returning(['id', 'run_spec', 'epoch'])
      .execute();
    return rows.map((r) => ({ id: r.id, spec: fromJson<StoredRunSpec>(r.run_spec), epoch: Number(r.epoch) }));
  }

  /** Lets go of executions this replica runs (it stops): any replica may claim them at once. */
  async release(replica: string, ids?: string[]): Promise<void> {
    if (ids?.length === 0) return;
    let query = this.db.updateTable('execution_record').set({ replica: null }).where('replica', '=', replica);
    if (ids) query = query.where('id', 'in', ids);
    await query.execute();
  }

  /** Whether `replica` still owns the execution (another may have claimed it while this one was presumed dead). */
  async owns(replica: string, id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('execution_record')
      .select('replica')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.replica === replica;
  }
}
