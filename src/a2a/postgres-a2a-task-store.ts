import { Logger } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { fromJson, toJson } from '../db/json-columns';
import type { Tables } from '../db/tables';
import type { SealedTokens, TokenCipher } from '../oauth/token-cipher';
import {
  A2aTaskStore,
  CONTEXT_TTL_MS,
  withConfig,
  withTurn,
  type ContextTurn,
  type StoredPushConfig,
} from './a2a-task-store';

/**
 * A push config as its row holds it: its secrets (the credentials and the token) sealed together.
 * Rows written before secrets were sealed hold them as `StoredPushConfig` does, and are read as such.
 */
interface PushConfigRow {
  id: string;
  url: string;
  scheme?: string;
  sealed?: SealedTokens;
  token?: string;
  authentication?: StoredPushConfig['authentication'];
}

interface Secrets {
  token: string;
  credentials?: string;
}

/**
 * The A2A store in PostgreSQL, for replicas, beside the execution records it points to. Each change is
 * a read-modify-write of one row under a row lock, so two replicas adding to one list both count.
 * A push config's credentials and token are sealed with AES-256-GCM (`cipher`, the key of
 * `general.executions.token_key_env`), bound to the task and the config's id; without a key none is kept.
 */
export class PostgresA2aTaskStore extends A2aTaskStore {
  private readonly logger = new Logger('A2aTaskStore');

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly cipher?: TokenCipher,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  override get keepsSecrets(): boolean {
    return this.cipher !== undefined;
  }

  async turns(owner: string, contextId: string): Promise<ContextTurn[]> {
    const row = await this.db
      .selectFrom('a2a_context')
      .select('turns')
      .where('owner', '=', owner)
      .where('context_id', '=', contextId)
      .executeTakeFirst();
    return row ? fromJson<ContextTurn[]>(row.turns) : [];
  }

  addTurn(owner: string, contextId: string, turn: ContextTurn): Promise<void> {
    return this.changeTurns(owner, contextId, (turns) => withTurn(turns, turn));
  }

  async pushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    const row = await this.db
      .selectFrom('a2a_push_config')
      .select('configs')
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row ? fromJson<PushConfigRow[]>(row.configs).map((c) => this.open(taskId, c)) : [];
  }

  savePushConfig(taskId: string, config: StoredPushConfig): Promise<boolean> {
    return this.changeConfigs(taskId, (configs) => withConfig(configs, config));
  }

  deletePushConfig(taskId: string, id: string): Promise<boolean> {
    return this.changeConfigs(taskId, (configs) => {
      const kept = configs.filter((c) => c.id !== id);
      return kept.length === configs.length ? false : kept;
    });
  }

  async sweep(now: number): Promise<void> {
    await this.db
      .deleteFrom('a2a_context')
      .where('touched_at', '<=', now - CONTEXT_TTL_MS)
      .execute();
    await sql`delete from a2a_push_config p
      where not exists (select 1 from execution_record r where r.id = p.task_id)`.execute(this.db);
  }

  private async changeTurns(
    owner: string,
    contextId: string,
    change: (turns: ContextTurn[]) => ContextTurn[],
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // The first turn of a context inserts its row; a concurrent first turn waits on the conflict.
      await trx
        .insertInto('a2a_context')
        .values({ owner, context_id: contextId, touched_at: this.now(), turns: '[]' })
        .onConflict((oc) => oc.columns(['owner', 'context_id']).doNothing())
        .execute();
      const row = await trx
        .selectFrom('a2a_context')
        .select('turns')
        .where('owner', '=', owner)
        .where('context_id', '=', contextId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('a2a_context')
        .set({ turns: toJson(change(fromJson<ContextTurn[]>(row.turns))), touched_at: this.now() })
        .where('owner', '=', owner)
        .where('context_id', '=', contextId)
        .execute();
    });
  }

  private changeConfigs(
    taskId: string,
    change: (configs: StoredPushConfig[]) => StoredPushConfig[] | false,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('a2a_push_config')
        .values({ task_id: taskId, configs: '[]' })
        .onConflict((oc) => oc.column('task_id').doNothing())
        .execute();
      const row = await trx
        .selectFrom('a2a_push_config')
        .select('configs')
        .where('task_id', '=', taskId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const rows = fromJson<PushConfigRow[]>(row.configs);
      const next = change(rows.map((c) => this.open(taskId, c)));
      if (next === false) return false;
      await trx
        .updateTable('a2a_push_config')
        .set({ configs: toJson(next.map((c) => this.seal(taskId, c))) })
        .where('task_id', '=', taskId)
        .execute();
      return true;
    });
  }

  private seal(taskId: string, config: StoredPushConfig): PushConfigRow {
    const { id, url, token, authentication } = config;
    const secrets: Secrets = { token, credentials: authentication?.credentials };
    if (!secrets.token && !secrets.credentials) return { id, url, scheme: authentication?.scheme };
    if (!this.cipher) throw new Error('Push notification secrets cannot be stored without a key');
    const sealed = this.cipher.seal(boundTo(taskId, id), JSON.stringify(secrets));
    return { id, url, scheme: authentication?.scheme, sealed };
  }

  private open(taskId: string, row: PushConfigRow): StoredPushConfig {
    // Written before secrets were sealed: held as they are (the next change of the task's configs seals them).
    if (row.token !== undefined)
      return { id: row.id, url: row.url, token: row.token, authentication: row.authentication };
    const { id, url, scheme } = row;
    const secrets = row.sealed ? this.secretsOf(taskId, id, row.sealed) : { token: '' };
    const config: StoredPushConfig = { id, url, token: secrets.token };
    if (scheme) config.authentication = { scheme, credentials: secrets.credentials ?? '' };
    return config;
  }

  private secretsOf(taskId: string, id: string, sealed: SealedTokens): Secrets {
    try {
      if (!this.cipher) throw new Error('no key is set');
      return JSON.parse(this.cipher.open(boundTo(taskId, id), sealed)) as Secrets;
    } catch (err) {
      // Sealed with another key (a new one) or altered: the receiver is sent no credentials and no token.
      this.logger.warn(
        `Push notification config ${id} of task ${taskId}: its secrets cannot be read (${(err as Error).message})`,
      );
      return { token: '' };
    }
  }
}

/** What a config's secrets are sealed for: a row copied onto another task or config does not open. */
function boundTo(taskId: string, configId: string): string {
  return `a2a-push:${taskId}:${configId}`;
}
