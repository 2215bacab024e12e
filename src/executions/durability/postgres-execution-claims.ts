import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { fromJson } from '../../db/json-columns';
import type { RunSpec } from '../model/run-spec';

/** An execution this replica now owns, with what re-running it takes. */
export interface ClaimedRun {
  id: string;
  spec: RunSpec;
}

const TERMINAL = ['completed', 'failed'];

/**
 * Which replica runs each durable execution (the `replica` column of its record). A claim is a
 * compare-and-set on that column: of replicas claiming the same orphan, one gets it.
 */
export class PostgresExecutionClaims {
  constructor(private readonly db: Kysely<Tables>) {}

  /** The replicas named as running durable executions that have not ended (null: released ones). */
  async owners(): Promise<(string | null)[]> {
    const rows = await this.db
      .selectFrom('execution_record')
      .select('replica')
      .distinct()
      .where('run_spec', 'is not', null)
      .where('status', 'not in', TERMINAL)
      .execute();
    return rows.map((r) => r.replica);
  }

  /** Takes up to `limit` unended executions of `from` replicas (null: released ones) for `replica`. */
  async claim(replica: string, from: (string | null)[], limit: number): Promise<ClaimedRun[]> {
    const dead = from.filter((r): r is string => r !== null);
    const released = from.includes(null);
    if (!dead.length && !released) return [];
    const orphaned = this.db
      .selectFrom('execution_record')
      .select('id')
      .where('run_spec', 'is not', null)
      .where('status', 'not in', TERMINAL)
      .where((eb) => {
        const owners = [];
        if (dead.length) owners.push(eb('replica', 'in', dead));
        if (released) owners.push(eb('replica', 'is', null));
        return eb.or(owners);
      })
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = await this.db
      .updateTable('execution_record')
      .set({ replica })
      .where('id', 'in', orphaned)
      .returning(['id', 'run_spec'])
      .execute();
    return rows.map((r) => ({ id: r.id, spec: fromJson<RunSpec>(r.run_spec) }));
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
