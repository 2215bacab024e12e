import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../../db/tables';

/** Now, in epoch ms on PostgreSQL's clock: one clock for every replica's lease. */
export function dbNowMs(): RawBuilder<number> {
  return sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
}

/** A lease that ran out longer ago than this is forgotten (a replica that died long ago). */
const FORGET_AFTER_MS = 3_600_000;

/**
 * Each replica's lease in PostgreSQL (table `replica_lease`): a row whose expiry the replica's heartbeat
 * moves on. A replica whose row has run out is presumed dead, and its executions are claimed by others
 * (PostgresExecutionClaims). The system of record holds it, so a Redis restarted empty loses none.
 */
export class PostgresReplicaLeases {
  constructor(private readonly db: Kysely<Tables>) {}

  /**
   * Takes or renews `replica`'s lease for `leaseMs` from now (PostgreSQL's now). Resolves with the ms
   * until the first other replica's lease that holds now runs out, if any (in the same statement): a
   * lease not renewed by then is one whose executions can be claimed at that moment.
   */
  async renew(replica: string, leaseMs: number): Promise<number | undefined> {
    const expires = sql<number>`${dbNowMs()} + ${leaseMs}`;
    const row = await this.db
      .insertInto('replica_lease')
      .values({ replica, expires_at: expires as unknown as number })
      .onConflict((c) => c.column('replica').doUpdateSet({ expires_at: expires as unknown as number }))
      .returning((eb) =>
        eb
          .selectFrom('replica_lease as other')
          .select(sql<string | number | null>`min(other.expires_at) - ${dbNowMs()}`.as('ms'))
          .where('other.replica', '<>', replica)
          .where('other.expires_at', '>', dbNowMs())
          .as('others_expire_in'),
      )
      .executeTakeFirstOrThrow();
    const ms = row.others_expire_in;
    return ms === null || ms === undefined ? undefined : Number(ms);
  }

  /** Gives the lease up (a graceful stop), and forgets leases of replicas gone long ago. */
  async leave(replica: string): Promise<void> {
    await this.db
      .deleteFrom('replica_lease')
      .where((eb) =>
        eb.or([
          eb('replica', '=', replica),
          eb('expires_at', '<', sql<number>`${dbNowMs()} - ${FORGET_AFTER_MS}`),
        ]),
      )
      .execute();
  }
}
