import type { Identity } from '../core/identity/identity';
import type { RequestMetadata } from '../core/request-metadata';

/** NeMo Agent Toolkit's job statuses, plus the two a job waiting for a person or a grant shows. */
export const JOB_STATUSES = [
  'submitted',
  'running',
  'success',
  'failure',
  'interrupted',
  'interaction_required',
  'oauth_required',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINAL_STATUSES: readonly JobStatus[] = ['success', 'failure', 'interrupted'];
/** Statuses of a job some runner has started and not finished. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['running', 'interaction_required', 'oauth_required'];

export const isFinal = (status: JobStatus): boolean => FINAL_STATUSES.includes(status);

export type JobKind = 'workflow' | 'evaluation';

/**
 * Where a paused job is answered: the HTTP interactive face's URLs for its execution; or why a
 * submitted job has not started (its owner runs their share of jobs already).
 */
export type JobPause =
  | { status: 'submitted'; waiting_reason: string }
  | {
      status: 'interaction_required';
      execution_id: string;
      interaction_id: string;
      prompt: unknown;
      response_url: string;
    }
  | { status: 'oauth_required'; execution_id: string; auth_url: string; oauth_state: string };

/** A job as the store returns it. */
export interface Job {
  /** Internal id: the queue's key for the job. */
  id: string;
  kind: JobKind;
  jobId: string;
  ownerId: string | null;
  identity: Identity;
  status: JobStatus;
  input: unknown;
  output: unknown;
  error: string | null;
  pause: JobPause | null;
  webhookUrl: string | null;
  expirySeconds: number;
  configFile: string | null;
  outputPath: string | null;
  reps: number | null;
  attempts: number;
  /** ISO 8601, UTC. */
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
}

/** What a runner needs besides the row: the request the job was submitted with (never stored in SQL). */
export interface JobTicket {
  id: string;
  kind: JobKind;
  request: RequestMetadata;
}

/** The status body of every job route (NeMo Agent Toolkit's fields, then ours). */
export function jobStatusBody(job: Job): Record<string, unknown> {
  const body: Record<string, unknown> = {
    job_id: job.jobId,
    status: job.status,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    expires_at: job.expiresAt,
    output: job.output ?? null,
  };
  if (job.kind === 'evaluation') {
    body.config_file = job.configFile;
    body.output_path = job.outputPath;
  }
  if (job.pause && job.pause.status === job.status) {
    const { status: _status, ...pause } = job.pause;
    Object.assign(body, pause);
  }
  return body;
}
