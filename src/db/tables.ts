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

/** One async job (`/v1/workflow/async`, `/evaluate`); JSON values are stored as text. */
export interface JobsTable {
  /** Internal id (the queue's job id); callers name jobs by `job_id`. */
  id: string;
  kind: 'workflow' | 'evaluation';
  job_id: string;
  /** The submitter's user id; '' for anonymous callers. */
  owner_key: string;
  /** The submitting identity (JSON), so a worker runs the job as that caller. */
  identity: string;
  status: string;
  input: string | null;
  output: string | null;
  error: string | null;
  /** While waiting for a person or an OAuth grant: where to answer (JSON). */
  pause: string | null;
  webhook_url: string | null;
  expiry_seconds: number;
  config_file: string | null;
  output_path: string | null;
  reps: number | null;
  /** How many times a runner started it (more than 1 after a worker died mid-job). */
  attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: ColumnType<Date | string, string, string>;
  expires_at: ColumnType<Date | string | null, string | null, string | null>;
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
  created_at: BigIntColumn;
  /** JSON: json on PostgreSQL (read back parsed), text on SQLite. */
  record: ColumnType<unknown, string, string>;
  /** The replica that runs it (durable executions); null once released for another to claim. */
  replica: ColumnType<string | null, string | null | undefined, string | null>;
  /** What re-running it takes (JSON, durable executions only). */
  run_spec: ColumnType<unknown, string | null | undefined, string | null>;
  /** Incremented by every claim: the run's journal is written only under the epoch it was claimed with. */
  epoch: ColumnType<number, number | undefined, number>;
}

/** A replica's lease on the durable executions it runs (epoch ms on PostgreSQL's clock). */
export interface ReplicaLeaseTable {
  replica: string;
  expires_at: BigIntColumn;
}

/** One journaled result of a durable execution. */
export interface ExecutionJournalTable {
  n: Generated<string | number>;
  execution_id: string;
  point: string;
  kind: string;
  value: ColumnType<unknown, string, string>;
  created_at: BigIntColumn;
}

export interface PendingOAuthFlowTable {
  state: string;
  expires_at: BigIntColumn;
  flow: ColumnType<unknown, string, string>;
  /** pending → taken (a callback or the waiter's timeout won it) → settled (outcome known). */
  status: ColumnType<string, string | undefined, string>;
  /** JSON `{ok: true}` or `{ok: false, message}` once settled; never a token. */
  outcome: ColumnType<unknown, string | null | undefined, string | null>;
  execution_id: string | null;
  provider: string | null;
  created_at: ColumnType<string | number, number | undefined, number>;
}

/** An OAuth token set, sealed with AES-256-GCM (`token-cipher.ts`); the key is not in the database. */
export interface OAuthTokenTable {
  /** `user:<id>:<provider>` or `execution:<id>:<provider>`; also the cipher's associated data. */
  owner: string;
  execution_id: string | null;
  key_id: string;
  iv: string;
  auth_tag: string;
  ciphertext: string;
  updated_at: BigIntColumn;
}

/** An AG-UI thread of `general.executions.store: postgres`; `thread` is the whole AguiThread. */
export interface AguiThreadTable {
  id: string;
  owner: string;
  /** While a run streams on it: until when its claim holds unless renewed (epoch ms). */
  busy_until: BigIntColumn | null;
  touched_at: BigIntColumn;
  /** The thread waits on interrupts: it never makes room for a new one. */
  waiting: boolean;
  thread: ColumnType<unknown, string, string>;
}

/** A stored OpenAI response of `general.executions.store: postgres`; `response` is the whole StoredResponse. */
export interface ResponseTable {
  id: string;
  owner_id: string | null;
  expires_at: BigIntColumn;
  response: ColumnType<unknown, string, string>;
}

/** A conversation of the built-in page, kept for its owner (`owner_id`: the identity's user id). */
export interface PageConversationTable {
  owner_id: string;
  id: string;
  title: string;
  updated_at: BigIntColumn;
  /** Lower-cased title, questions and answers: what a search looks in. */
  search_text: string;
  /** The ids of the prompts asked in it, space-separated: the inbox's link to the conversation. */
  interaction_ids: string;
  /** JSON: the page's turns (json on PostgreSQL, read back parsed; text on SQLite). */
  turns: ColumnType<unknown, string, string>;
  /** The turns' size in bytes (UTF-8 JSON): what the server-wide bound counts. */
  bytes: number;
}

/** Every table, as Kysely sees them. Migrations in ./migrations create them. */
/** A2A: one context's turns (JSON list), by owner (`''` for anonymous callers) and context id. */
export interface A2aContextTable {
  owner: string;
  context_id: string;
  touched_at: BigIntColumn;
  turns: ColumnType<unknown, string, string>;
}

/** A2A: one task's push-notification configs (JSON list). */
export interface A2aPushConfigTable {
  task_id: string;
  configs: ColumnType<unknown, string, string>;
}

export interface Tables {
  feedback: FeedbackTable;
  trace_owner: TraceOwnerTable;
  jobs: JobsTable;
  execution_record: ExecutionRecordTable;
  execution_journal: ExecutionJournalTable;
  pending_oauth_flow: PendingOAuthFlowTable;
  oauth_token: OAuthTokenTable;
  agui_thread: AguiThreadTable;
  response: ResponseTable;
  page_conversation: PageConversationTable;
  replica_lease: ReplicaLeaseTable;
  a2a_context: A2aContextTable;
  a2a_push_config: A2aPushConfigTable;
}

export function isoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
