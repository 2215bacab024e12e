import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Selectable } from 'kysely';
import type { Identity } from '../core/identity/identity';
import { Database } from '../db/database';
import { isoTimestamp, type JobsTable } from '../db/tables';
import {
  ACTIVE_STATUSES,
  FINAL_STATUSES,
  type Job,
  type JobKind,
  type JobPause,
  type JobStatus,
} from './job-record';

export interface NewJob {
  kind: JobKind;
  jobId: string;
  identity: Identity;
  input?: unknown;
  webhookUrl?: string | null;
  expirySeconds: number;
  configFile?: string;
  reps?: number;
}

export interface JobPage {
  jobs: Job[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

const ownerKey = (identity: Identity): string => identity.userId ?? '';
const json = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toJob(row: Selectable<JobsTable>): Job {
  return {
    id: row.id,
    kind: row.kind,
    jobId: row.job_id,
    ownerId: row.owner_key === '' ? null : row.owner_key,
    identity: JSON.parse(row.identity) as Identity,
    status: row.status as JobStatus,
    input: parsed(row.input),
    output: parsed(row.output),
    error: row.error,
    pause: parsed<JobPause>(row.pause),
    webhookUrl: row.webhook_url,
    expirySeconds: row.expiry_seconds,
    configFile: row.config_file,
    outputPath: row.output_path,
    reps: row.reps,
    attempts: row.attempts,
    createdAt: isoTimestamp(row.created_at),
    updatedAt: isoTimestamp(row.updated_at),
    expiresAt: row.expires_at === null ? null : isoTimestamp(row.expires_at),
  };
}

function encodeCursor(job: Job): string {
  return Buffer.from(JSON.stringify([job.createdAt, job.id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) {
      const [at, id] = value as [string, string];
      if (!Number.isNaN(Date.parse(at))) return [new Date(at).toISOString(), id];
    }
  } catch {
    // not ours: reported as an invalid cursor
  }
  return null;
}

export class InvalidCursor extends Error {}

let lastCreated = 0;
/** Creation times strictly increase within a process, so "newest first" keeps submission order. */
function creationTime(): string {
  lastCreated = Math.max(Date.now(), lastCreated + 1);
  return new Date(lastCreated).toISOString();
}

/**
 * The job rows, in the server's Database. Every change is one conditional UPDATE (the status it may
 * start from is in its WHERE), so two processes racing on a job leave it in one final status.
 */
@Injectable()
export class JobStore {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Creates the job, or finds the one with the same kind, owner and job_id (a unique key decides). */
  async insertOrGet(job: NewJob): Promise<{ job: Job; created: boolean }> {
    const now = creationTime();
    const id = randomUUID();
    await this.db
      .insertInto('jobs')
      .values({
        id,
        kind: job.kind,
        job_id: job.jobId,
        owner_key: ownerKey(job.identity),
        identity: JSON.stringify(job.identity),
        status: 'submitted',
        input: json(job.input),
        output: null,
        error: null,
        pause: null,
        webhook_url: job.webhookUrl ?? null,
        expiry_seconds: job.expirySeconds,
        config_file: job.configFile ?? null,
        output_path: null,
        reps: job.reps ?? null,
        created_at: now,
        updated_at: now,
        expires_at: null,
      })
      .onConflict((oc) => oc.columns(['kind', 'owner_key', 'job_id']).doNothing())
      .execute();
    const found = await this.find(job.kind, job.identity, job.jobId);
    if (!found) throw new Error(`job ${job.jobId} vanished after insert`);
    return { job: found, created: found.id === id };
  }

  /** The caller's job of this kind (another owner's job is not found). */
  async find(kind: JobKind, identity: Identity, jobId: string): Promise<Job | undefined> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('owner_key', '=', ownerKey(identity))
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return row && toJob(row);
  }

  async get(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async status(id: string): Promise<JobStatus | undefined> {
    const row = await this.db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirst();
    return row?.status as JobStatus | undefined;
  }

  /** The caller's jobs of this kind, newest first. */
  async list(
    kind: JobKind,
    identity: Identity,
    query: { status?: JobStatus; limit: number; cursor?: string },
  ): Promise<JobPage> {
    let select = this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('owner_key', '=', ownerKey(identity));
    if (query.status) select = select.where('status', '=', query.status);
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      if (!after) throw new InvalidCursor('cursor is not one this server handed out');
      const [at, id] = after;
      select = select.where((eb) =>
        eb.or([eb('created_at', '<', at), eb.and([eb('created_at', '=', at), eb('id', '<', id)])]),
      );
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    const jobs = rows.slice(0, query.limit).map(toJob);
    return { jobs, nextCursor: rows.length > query.limit ? encodeCursor(jobs[jobs.length - 1]) : null };
  }

  /** How many of the caller's jobs have not ended. */
  async countUnfinished(identity: Identity): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('owner_key', '=', ownerKey(identity))
      .where('status', 'not in', [...FINAL_STATUSES])
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A runner takes the job: from submitted, or again from an active status after its runner died. */
  async start(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        pause: null,
        attempts: eb('attempts', '+', 1),
        updated_at: new Date().toISOString(),
      }))
      .where('id', '=', id)
      .where('status', 'in', ['submitted', ...ACTIVE_STATUSES])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** A submitted job held back by its owner's share of running jobs: why (cleared when it starts). */
  async hold(id: string, reason: string): Promise<boolean> {
    const pause: JobPause = { status: 'submitted', waiting_reason: reason };
    const result = await this.db
      .updateTable('jobs')
      .set({ pause: json(pause), updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'submitted')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The running job waits for a person (or a grant), or goes on (`pause` null). */
  async pause(id: string, pause: JobPause | null): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({
        status: pause ? pause.status : 'running',
        pause: json(pause),
        updated_at: new Date().toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', [...ACTIVE_STATUSES])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Ends the job unless it already ended (the first final status wins); `expires_at` is its
   * `updated_at` plus the job's `expiry_seconds`.
   */
  async finish(
    id: string,
    end: { status: JobStatus; output?: unknown; error?: string | null; outputPath?: string },
    from: readonly JobStatus[] = ['submitted', ...ACTIVE_STATUSES],
  ): Promise<Job | undefined> {
    const job = await this.get(id);
    if (!job) return undefined;
    const now = new Date();
    const result = await this.db
      .updateTable('jobs')
      .set({
        status: end.status,
        output: json(end.output),
        error: end.error ?? null,
        pause: null,
        ...(end.outputPath !== undefined ? { output_path: end.outputPath } : {}),
        updated_at: now.toISOString(),
        expires_at: new Date(now.getTime() + job.expirySeconds * 1000).toISOString(),
      })
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? this.get(id) : undefined;
  }

  /** Start-up of an in-process server: jobs it was running (or had queued) cannot go on. */
  async failUnfinished(error: string): Promise<number> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id'])
      .where('status', 'not in', [...FINAL_STATUSES])
      .execute();
    let failed = 0;
    for (const { id } of rows) {
      if (await this.finish(id, { status: 'failure', error })) failed++;
    }
    return failed;
  }

  /** Drops the output of finished jobs past `expires_at`; their rows and statuses stay. */
  async expire(now = new Date()): Promise<number> {
    const result = await this.db
      .updateTable('jobs')
      .set({ output: null })
      .where('status', 'in', [...FINAL_STATUSES])
      .where('expires_at', '<=', now.toISOString())
      .where('output', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
