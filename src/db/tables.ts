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

/** Every table, as Kysely sees them. Migrations in ./migrations create them. */
export interface Tables {
  feedback: FeedbackTable;
  trace_owner: TraceOwnerTable;
}

export function isoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
