import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Tables } from '../db/tables';
import { fromJson, toJson } from '../db/json-columns';
import { AguiThreads, newThread, tooManyThreads, type AguiThread } from './agui-threads';

/**
 * How long a run's claim on its thread holds unless renewed, by default: a replica that died frees it
 * after this. The server uses `general.executions.lease_seconds`, the lease its executions have.
 */
export const CLAIM_LEASE_MS = 60_000;

type Row = Selectable<Tables['agui_thread']>;
type Db = Kysely<Tables> | Transaction<Tables>;

/**
 * The AG-UI threads in PostgreSQL, for replicas. Postgres rather than Redis: a thread is what lets a
 * client resume a wait for a person, which must outlive any replica (the system of record holds it,
 * beside the execution it points to); its claim is a compare-and-set on a row, and the per-user cap
 * (count, then drop the least recently used idle thread) is one indexed query under a per-user lock.
 */
export class PostgresAguiThreads extends AguiThreads {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly maxPerOwner: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly claimMs = CLAIM_LEASE_MS,
  ) {
    super();
  }

  override get renewEveryMs(): number {
    return this.claimMs / 3;
  }

  async get(id: string, owner: string): Promise<AguiThread | undefined> {
    const row = await this.db
      .selectFrom('agui_thread')
      .selectAll()
      .where('owner', '=', owner)
      .where('id', '=', id)
      .executeTakeFirst();
    const now = this.now();
    if (!row || this.expired(row, now)) return undefined;
    return this.threadOf(row, now);
  }

  claim(id: string, owner: string): Promise<AguiThread | false> {
    return this.db.transaction().execute(async (trx) => {
      const now = this.now();
      // One claim of a new thread per user at a time, on every replica, so the cap holds.
      await sql`select pg_advisory_xact_lock(hashtext(${`agui-thread:${owner}`}))`.execute(trx);
      const row = await trx
        .selectFrom('agui_thread')
        .selectAll()
        .where('owner', '=', owner)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (row && !this.expired(row, now)) {
        const thread = this.threadOf(row, now);
        if (thread.busy) return false;
        Object.assign(thread, { busy: true, touchedAt: now });
        await trx
          .updateTable('agui_thread')
          .set({ busy_until: now + this.claimMs, touched_at: now, thread: toJson(thread) })
          .where('owner', '=', owner)
          .where('id', '=', id)
          .execute();
        return thread;
      }
      if (row) await trx.deleteFrom('agui_thread').where('owner', '=', owner).where('id', '=', id).execute();
      await this.makeRoom(trx, owner, now);
      const thread = newThread(id, owner, now);
      const inserted = await trx
        .insertInto('agui_thread')
        .values({
          id,
          owner,
          busy_until: now + this.claimMs,
          touched_at: now,
          waiting: false,
          thread: toJson(thread),
        })
        .onConflict((c) => c.columns(['owner', 'id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? thread : false;
    });
  }

  async save(thread: AguiThread): Promise<void> {
    await this.db
      .updateTable('agui_thread')
      .set({ thread: toJson(thread), waiting: thread.interrupts.length > 0 })
      .where('id', '=', thread.id)
      .where('owner', '=', thread.owner)
      .execute();
  }

  async release(thread: AguiThread): Promise<void> {
    const now = this.now();
    Object.assign(thread, { busy: false, touchedAt: now });
    await this.db
      .updateTable('agui_thread')
      .set({
        busy_until: null,
        touched_at: now,
        waiting: thread.interrupts.length > 0,
        thread: toJson(thread),
      })
      .where('id', '=', thread.id)
      .where('owner', '=', thread.owner)
      .execute();
  }

  async renew(thread: AguiThread): Promise<void> {
    await this.db
      .updateTable('agui_thread')
      .set({ busy_until: this.now() + this.claimMs })
      .where('owner', '=', thread.owner)
      .where('id', '=', thread.id)
      .where('busy_until', 'is not', null)
      .execute();
  }

  async sweep(): Promise<void> {
    await this.expiredRows(this.db, this.now()).execute();
  }

  /**
   * Drops the owner's expired threads, then (at the cap) its least recently used idle one that waits
   * on no interrupt.
   */
  private async makeRoom(trx: Transaction<Tables>, owner: string, now: number): Promise<void> {
    await this.expiredRows(trx, now).where('owner', '=', owner).execute();
    const { count } = await trx
      .selectFrom('agui_thread')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('owner', '=', owner)
      .executeTakeFirstOrThrow();
    if (Number(count) < this.maxPerOwner) return;
    const oldest = await trx
      .selectFrom('agui_thread')
      .select('id')
      .where('owner', '=', owner)
      .where('waiting', '=', false)
      .where((eb) => eb.or([eb('busy_until', 'is', null), eb('busy_until', '<=', now)]))
      .orderBy('touched_at')
      .limit(1)
      .executeTakeFirst();
    if (!oldest) throw tooManyThreads(this.maxPerOwner);
    await trx.deleteFrom('agui_thread').where('owner', '=', owner).where('id', '=', oldest.id).execute();
  }

  private expiredRows(db: Db, now: number) {
    return db
      .deleteFrom('agui_thread')
      .where((eb) => eb.or([eb('busy_until', 'is', null), eb('busy_until', '<=', now)]))
      .where('touched_at', '<=', now - this.ttlMs);
  }

  private expired(row: Row, now: number): boolean {
    return !this.busy(row, now) && Number(row.touched_at) + this.ttlMs <= now;
  }

  private busy(row: Row, now: number): boolean {
    return row.busy_until !== null && Number(row.busy_until) > now;
  }

  private threadOf(row: Row, now: number): AguiThread {
    return { ...fromJson<AguiThread>(row.thread), busy: this.busy(row, now) };
  }
}
