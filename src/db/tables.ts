import type { ColumnType, Generated } from 'kysely';

/**
 * Timestamps are written as ISO 8601 strings; PostgreSQL (timestamptz) reads them back as Dates,
 * SQLite (text) as the strings written.
 */
export type Timestamp = ColumnType<Date | string, string, never>;

export interface FeedbackTable {
  id: Generated<number>;
  observability_trace_id: string;
  reaction_type: string | null;
  comment: string | null;
  /** NeMo Agent Toolkit user id of whoever sent it; null when anonymous. */
  user_id: string | null;
  created_at: Timestamp;
}

export interface TraceOwnerTable {
  observability_trace_id: string;
  /** The identified user whose execution first produced the trace; anonymous traces are not kept. */
  owner_id: string;
  created_at: Timestamp;
}

/** bigint columns: written as numbers, read back by pg as strings. */
export type BigIntColumn = ColumnType<string | number, number, number>;

/** An execution record of `general.executions.store: postgres`; `record` is the whole ExecutionRecord. */
export interface ExecutionRecordTable {
  id: string;
  owner_id: string | null;
  client_address: string | null;
  status: string;
  waiting: boolean;
  expires_at: BigIntColumn | null;
  /** JSON: json on PostgreSQL (read back parsed), text on SQLite. */
  record: ColumnType<unknown, string, string>;
}

export interface PendingOAuthFlowTable {
  state: string;
  expires_at: BigIntColumn;
  flow: ColumnType<unknown, string, string>;
}

/** Every table, as Kysely sees them. Migrations in ./migrations create them. */
export interface Tables {
  feedback: FeedbackTable;
  trace_owner: TraceOwnerTable;
  execution_record: ExecutionRecordTable;
  pending_oauth_flow: PendingOAuthFlowTable;
}

export function isoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
