import type { OnModuleDestroy } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { ExecutionStore, type DurableRun, type OwnerExecutionsQuery } from './execution.store';
import type { ExecutionRecord } from '../model/execution-record';
import {
  applyTransition,
  WAITING_STATUSES,
  type ExecutionTransition,
  type TransitionOutcome,
} from '../model/execution-state';
import { toJson } from '../../db/json-columns';
import { PreparedQuery } from '../../db/prepared-query';
import { journalRow } from './journal-row';
import { storedSpec } from '../model/run-spec';
import { addressKey, ownerKey, WaitingCounts } from './waiting-counts';
import { OwnRecords } from './own-records';
import type { RecordChanges } from './record-changes';
import { RecordReads } from './record-reads';
import { WrittenTexts } from './written-texts';

type Columns = ReturnType<typeof columns>;

function columns(record: ExecutionRecord, text = toJson(record)) {
  return {
    owner_id: record.ownerId,
    client_address: record.clientAddress ?? null,
    status: record.status,
    waiting: WAITING_STATUSES.includes(record.status),
    expires_at: record.expiresAt ?? null,
    created_at: record.createdAt,
    record: text,
  };
}

/** Each of the `columns`, a parameter of a prepared query. */
function columnParams(param: (name: keyof Columns) => never): Record<keyof Columns, never> {
  return {
    owner_id: param('owner_id'),
    client_address: param('client_address'),
    status: param('status'),
    waiting: param('waiting'),
    expires_at: param('expires_at'),
    created_at: param('created_at'),
    record: param('record'),
  };
}

/** A record written over the text it was read as (a compare-and-set): one row updated, or none. */
const UPDATE_OVER = new PreparedQuery<Tables, keyof Columns | 'id' | 'before'>((db, param) =>
  db
    .updateTable('execution_record')
    .set(columnParams(param))
    .where('id', '=', param('id'))
    .where(sql`record::text`, '=', param('before')),
);

/** A new record, with (a durable run's) the replica that runs it and what it runs, else nulls. */
const INSERT = new PreparedQuery<Tables, keyof Columns | 'id' | 'replica' | 'run_spec'>((db, param) =>
  db.insertInto('execution_record').values({
    id: param('id'),
    ...columnParams(param),
    replica: param('replica'),
    run_spec: param('run_spec'),
  }),
);

/** What `changed` compares with for a record that is new or gone. */
const NOT_WAITING = { status: 'running' } as ExecutionRecord;

/**
 * Execution records in PostgreSQL, shared by every replica. A transition reads the row, runs the state
 * machine and writes the result only over what it read (`transition`), so two replicas closing the
 * same interaction are serialized and exactly one of them is told `applied`.
 */
export class PostgresExecutionStore extends ExecutionStore implements OnModuleDestroy {
  /** The counts the capacity limits read on each start, read here at most once a second (waiting-counts.ts). */
  private readonly counts = new WaitingCounts();
  /** The records this replica wrote last that nobody else can change (own-records.ts). */
  private readonly own = new OwnRecords();
  /** Where this replica's next write of a record starts (written-texts.ts). */
  private readonly written = new WrittenTexts();
  /** The queries that only read records. */
  private readonly reads: RecordReads;

  constructor(
    private readonly db: Kysely<Tables>,
    /** Writes announced to every replica, polls served copies (record-changes.ts); none: polls read PostgreSQL. */
    private readonly changes?: RecordChanges,
  ) {
    super();
    this.reads = new RecordReads(db);
    changes?.onChangedElsewhere((id, text) => this.written.changedElsewhere(id, text));
    changes?.renewCopies((ids) => this.reads.versions(ids));
  }

  onModuleDestroy(): Promise<void> {
    return this.changes?.close() ?? Promise.resolve();
  }

  override recent(id: string): Readonly<ExecutionRecord> | undefined {
    const text = this.written.get(id);
    return text !== undefined ? (JSON.parse(text) as ExecutionRecord) : this.changes?.lastRead(id);
  }

  override peek(id: string): Promise<Readonly<ExecutionRecord> | undefined> {
    return this.changes ? this.changes.read(id, () => this.reads.versioned(id)) : this.get(id);
  }

  override held(id: string): Readonly<ExecutionRecord> | undefined {
    return this.own.get(id);
  }

  override forget(ids: Iterable<string>): void {
    this.own.forget(ids);
  }

  async create(record: ExecutionRecord, durable?: DurableRun): Promise<void> {
    const token = this.own.begin(record.id);
    let written: ExecutionRecord | undefined;
    try {
      const text = toJson(record);
      await this.insert(record, text, durable);
      this.changes?.created(record.id);
      this.written.set(record.id, text);
      written = structuredClone(record);
    } finally {
      this.own.end(record.id, token, written);
    }
    this.counts.changed(NOT_WAITING, record);
  }

  private async insert(record: ExecutionRecord, text: string, durable?: DurableRun): Promise<void> {
    const run = durable && { replica: durable.replica, run_spec: toJson(storedSpec(durable.spec, record)) };
    const row = { id: record.id, ...columns(record, text), replica: null, run_spec: null, ...run };
    const journal = durable?.journal;
    if (!journal?.length) {
      await INSERT.run(this.db, row);
    } else {
      // One statement: the record and what the run journaled before it, or neither.
      await this.db
        .with('created', (db) => db.insertInto('execution_record').values(row).returning('id'))
        .insertInto('execution_journal')
        .values(journal.map((entry) => journalRow(record.id, entry)))
        .execute();
    }
  }

  get(id: string): Promise<ExecutionRecord | undefined> {
    return this.reads.get(id);
  }

  apply(
    id: string,
    transition: ExecutionTransition,
    seen?: Readonly<ExecutionRecord>,
  ): Promise<TransitionOutcome> {
    return this.announced(id, (announce) => this.applyHere(id, { transition, seen }, announce));
  }

  /**
   * Runs a write of an existing record, announced to every replica when they keep copies; the write
   * awaits `announce(text)` before it commits.
   */
  private announced<T>(
    id: string,
    write: (announce: (text?: string) => Promise<unknown>) => Promise<T>,
  ): Promise<T> {
    return this.changes ? this.changes.write(id, write) : write(async () => undefined);
  }

  private async applyHere(
    id: string,
    change: { transition: ExecutionTransition; seen?: Readonly<ExecutionRecord> },
    announce: (text?: string) => Promise<unknown>,
  ): Promise<TransitionOutcome> {
    const token = this.own.begin(id);
    let written: ExecutionRecord | undefined;
    try {
      const { outcome, record } = await this.transition(id, change, announce);
      if (outcome === 'applied') written = record;
      return outcome;
    } finally {
      // After the commit: a copy served before it could be newer than what other replicas read.
      this.own.end(id, token, written);
    }
  }

  /**
   * Runs the state machine on the record and writes the result only over the record it started from (a
   * compare-and-set on its text, one statement): when another write came in between (another
   * replica's answer, a timeout, a cancel), it reads the record again, so of two closing the same
   * interaction exactly one is told `applied`. Starting from `seen` (the caller's own read) or from what
   * this replica wrote last it takes one round trip, else two; a transaction with `FOR UPDATE` took four.
   */
  private async transition(
    id: string,
    { transition, seen }: { transition: ExecutionTransition; seen?: Readonly<ExecutionRecord> },
    announce: (text?: string) => Promise<unknown>,
  ): Promise<{ outcome: TransitionOutcome; record?: ExecutionRecord }> {
    // The text a record was written as is what `toJson` makes of it as read back (JSON.stringify's
    // output parses and prints back the same); were it not, the write would find no match and read.
    let text = seen ? toJson(seen) : this.written.get(id);
    for (let fromSeen = text !== undefined; ; fromSeen = false) {
      if (!fromSeen) {
        text = await this.reads.text(id);
        if (text === undefined) return { outcome: 'not_found' };
      }
      const before = JSON.parse(text!) as ExecutionRecord;
      const { outcome, record } = applyTransition(before, transition, Date.now());
      // Refused on the caller's copy: what the store holds now decides.
      if (outcome !== 'applied') {
        if (fromSeen) continue;
        return { outcome };
      }
      const after = toJson(record);
      // A change made for a client from its own read (an answer) tells the replica running the run what
      // it wrote; the run's own writes need not (no other replica writes the record next).
      await announce(seen ? after : undefined);
      const updated = await UPDATE_OVER.run(this.db, { ...columns(record, after), id, before: text! });
      if (updated.numAffectedRows === 1n) {
        this.written.set(id, after);
        this.counts.changed(before, record);
        return { outcome, record };
      }
      this.written.forget([id]);
    }
  }

  delete(id: string): Promise<void> {
    return this.announced(id, async (announce) => {
      await announce();
      await this.deleteHere(id);
    });
  }

  private async deleteHere(id: string): Promise<void> {
    this.written.forget([id]);
    const token = this.own.begin(id);
    const row = await this.db
      .deleteFrom('execution_record')
      .where('id', '=', id)
      .returning(['status', 'owner_id', 'client_address'])
      .executeTakeFirst()
      .finally(() => this.own.end(id, token));
    if (!row) return;
    const gone = {
      status: row.status,
      ownerId: row.owner_id,
      clientAddress: row.client_address ?? undefined,
    };
    this.counts.changed(gone as ExecutionRecord, NOT_WAITING);
  }

  countWaiting(ownerId?: string | null, cachedBelow?: number): Promise<number> {
    return this.counts.get(ownerKey(ownerId), () => this.reads.countWaiting(ownerId), cachedBelow);
  }

  countWaitingFrom(clientAddress: string, cachedBelow?: number): Promise<number> {
    const read = () => this.reads.countWaitingFrom(clientAddress);
    return this.counts.get(addressKey(clientAddress), read, cachedBelow);
  }

  listOwned(ownerId: string, query: OwnerExecutionsQuery): Promise<ExecutionRecord[]> {
    return this.reads.listOwned(ownerId, query);
  }

  async evictExpired(now: number): Promise<string[]> {
    const rows = await this.db
      .deleteFrom('execution_record')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .returning('id')
      .execute();
    // Only ended records expire: none is held here (`held`), but polls may have been served copies.
    const ids = rows.map((r) => r.id);
    this.written.forget(ids);
    await this.changes?.gone(ids);
    return ids;
  }
}
