import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables';
import { PendingOAuthFlows, type PendingFlow } from './pending-oauth-flows';

function parsed(value: unknown): PendingFlow {
  return (typeof value === 'string' ? JSON.parse(value) : value) as PendingFlow;
}

/**
 * Pending OAuth flows in PostgreSQL, so a consent whose `/auth/redirect` lands on another replica
 * finds its flow. `take` is one `DELETE … RETURNING`: of two replicas taking the same state, one gets it.
 */
export class PostgresPendingOAuthFlows extends PendingOAuthFlows {
  constructor(private readonly db: Kysely<Tables>) {
    super();
  }

  async put(flow: PendingFlow): Promise<void> {
    const row = { expires_at: flow.expiresAt, flow: JSON.stringify(flow) };
    await this.db
      .insertInto('pending_oauth_flow')
      .values({ state: flow.state, ...row })
      .onConflict((oc) => oc.column('state').doUpdateSet(row))
      .execute();
    // Flows nobody finished (a consent abandoned while its server went away) go with the next one.
    await this.db
      .deleteFrom('pending_oauth_flow')
      .where('expires_at', '<', Date.now() - 3_600_000)
      .execute();
  }

  async get(state: string, now = Date.now()): Promise<PendingFlow | undefined> {
    const row = await this.db
      .selectFrom('pending_oauth_flow')
      .select('flow')
      .where('state', '=', state)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && parsed(row.flow);
  }

  async bind(state: string, binding: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('pending_oauth_flow')
        .select('flow')
        .where('state', '=', state)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return false;
      const flow = { ...parsed(row.flow), binding };
      await trx
        .updateTable('pending_oauth_flow')
        .set({ flow: JSON.stringify(flow) })
        .where('state', '=', state)
        .execute();
      return true;
    });
  }

  async take(state: string): Promise<PendingFlow | undefined> {
    const row = await this.db
      .deleteFrom('pending_oauth_flow')
      .where('state', '=', state)
      .returning('flow')
      .executeTakeFirst();
    return row && parsed(row.flow);
  }
}
