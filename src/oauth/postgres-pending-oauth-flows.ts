import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables';
import type { SealedTokens, TokenCipher } from './token-cipher';
import {
  FLOW_RETENTION_MS,
  PendingOAuthFlows,
  type FlowOutcome,
  type FlowRecord,
  sameToken,
  type PendingFlow,
} from './pending-oauth-flows';

function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A flow as its row holds it: the PKCE verifier sealed, so a read of the table cannot redeem a code. */
type StoredFlow = Omit<PendingFlow, 'codeVerifier'> & { sealedVerifier?: SealedTokens };

/**
 * Pending OAuth flows in PostgreSQL, so a consent whose `/auth/redirect` lands on another replica
 * finds its flow. `take` and `settle` are single conditional UPDATEs: of two replicas taking the same
 * state, one gets it; an outcome is recorded once.
 */
export class PostgresPendingOAuthFlows extends PendingOAuthFlows {
  /** `cipher` is absent only where no provider is configured, so no flow is ever put. */
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly cipher?: TokenCipher,
  ) {
    super();
  }

  private stored(flow: PendingFlow): StoredFlow {
    const { codeVerifier, ...rest } = flow;
    if (codeVerifier === undefined) return rest;
    if (!this.cipher) throw new Error('a PKCE verifier cannot be stored without the token key');
    // The state as associated data: a sealed verifier copied onto another flow's row does not open.
    return { ...rest, sealedVerifier: this.cipher.seal(flow.state, codeVerifier) };
  }

  private flowOf(value: unknown): PendingFlow {
    const { sealedVerifier, ...flow } = parsed<StoredFlow>(value);
    if (!sealedVerifier || !this.cipher) return flow;
    return { ...flow, codeVerifier: this.cipher.open(flow.state, sealedVerifier) };
  }

  private record(row: { flow: unknown; status: string; outcome: unknown }): FlowRecord {
    const flow = this.flowOf(row.flow);
    if (row.status === 'settled')
      return { ...flow, status: 'settled', outcome: parsed<FlowOutcome>(row.outcome) };
    return { ...flow, status: row.status === 'taken' ? 'taken' : 'pending' };
  }

  async put(flow: PendingFlow): Promise<void> {
    const row = {
      expires_at: flow.expiresAt,
      flow: JSON.stringify(this.stored(flow)),
      status: 'pending',
      outcome: null,
      execution_id: flow.executionId,
      provider: flow.provider,
      created_at: flow.createdAt,
    };
    await this.db
      .insertInto('pending_oauth_flow')
      .values({ state: flow.state, ...row })
      .onConflict((oc) => oc.column('state').doUpdateSet(row))
      .execute();
    // Flows nobody finished (a consent abandoned while its server went away) go with the next one.
    await this.db
      .deleteFrom('pending_oauth_flow')
      .where('expires_at', '<', Date.now() - FLOW_RETENTION_MS)
      .execute();
  }

  async get(state: string, now = Date.now()): Promise<PendingFlow | undefined> {
    const row = await this.db
      .selectFrom('pending_oauth_flow')
      .select('flow')
      .where('state', '=', state)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && this.flowOf(row.flow);
  }

  bind(state: string, binding: string): Promise<boolean> {
    return this.update(state, (flow) => ({ ...flow, binding }));
  }

  prepare(state: string, confirm: string): Promise<boolean> {
    return this.update(state, (flow) => (flow.binding ? undefined : { ...flow, confirm }));
  }

  confirm(state: string, confirm: string, binding: string): Promise<boolean> {
    return this.update(state, (flow) =>
      flow.binding || !sameToken(flow.confirm, confirm)
        ? undefined
        : { ...flow, confirm: undefined, binding },
    );
  }

  /** Rewrites a pending flow under a row lock; `change` returns undefined to leave it (false). */
  private update(state: string, change: (flow: StoredFlow) => StoredFlow | undefined): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('pending_oauth_flow')
        .select('flow')
        .where('state', '=', state)
        .where('status', '=', 'pending')
        .forUpdate()
        .executeTakeFirst();
      const changed = row && change(parsed<StoredFlow>(row.flow));
      if (!changed) return false;
      await trx
        .updateTable('pending_oauth_flow')
        .set({ flow: JSON.stringify(changed) })
        .where('state', '=', state)
        .execute();
      return true;
    });
  }

  async take(state: string): Promise<PendingFlow | undefined> {
    const row = await this.db
      .updateTable('pending_oauth_flow')
      .set({ status: 'taken' })
      .where('state', '=', state)
      .where('status', '=', 'pending')
      .returning('flow')
      .executeTakeFirst();
    return row && this.flowOf(row.flow);
  }

  async settle(state: string, outcome: FlowOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('pending_oauth_flow')
      .set({ status: 'settled', outcome: JSON.stringify(outcome) })
      .where('state', '=', state)
      .where('status', '=', 'taken')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async find(state: string): Promise<FlowRecord | undefined> {
    const row = await this.db
      .selectFrom('pending_oauth_flow')
      .select(['flow', 'status', 'outcome'])
      .where('state', '=', state)
      .executeTakeFirst();
    return row && this.record(row);
  }

  async forExecution(executionId: string, provider: string): Promise<FlowRecord[]> {
    const rows = await this.db
      .selectFrom('pending_oauth_flow')
      .select(['flow', 'status', 'outcome'])
      .where('execution_id', '=', executionId)
      .where('provider', '=', provider)
      .orderBy('created_at')
      .orderBy('state')
      .execute();
    return rows.map((row) => this.record(row));
  }
}
