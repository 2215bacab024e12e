import { IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import type { WebhookSettings } from '../core/outbound/webhook-delivery';
import { IfPresent } from '../core/validation/if-present.decorator';

/** Where async jobs run: in the server process, or on `interlude worker` processes through BullMQ. */
export const JOB_QUEUES = ['in_process', 'redis', 'postgres'] as const;
export type JobQueueDriver = (typeof JOB_QUEUES)[number];

const BULLMQ_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `general.async`: the async jobs of `/v1/workflow/async` and `/evaluate`. */
export class AsyncConfig {
  /**
   * `in_process` (default): jobs run in the server. `redis`: the server enqueues on BullMQ over Redis
   * (`redis_url`, else REDIS_URL) and `interlude worker` processes run them; `postgres`: the same on
   * BullMQ's PostgreSQL backend (the `db_url` database), for sites without Redis.
   */
  @IfPresent()
  @IsIn(JOB_QUEUES, { message: `queue must be one of: ${JOB_QUEUES.join(', ')}` })
  queue: JobQueueDriver = 'in_process';
  /**
   * Jobs one process runs at once (the server in `in_process`, each worker otherwise). A job waiting
   * for a person holds none: it takes one again when the answer comes.
   */
  @IsOptional() @Min(1) @Max(1000) @IsInt() max_concurrent_jobs?: number;
  /** Of those, jobs one identified user runs at once; the user's next ones wait in `submitted`. */
  @IfPresent() @Min(1) @Max(1000) @IsInt() max_running_jobs_per_user = 5;
  /** Of those, jobs all anonymous callers together run at once. */
  @IfPresent() @Min(1) @Max(1000) @IsInt() max_running_anonymous_jobs = 5;

  /** Jobs waiting for a slot in one server (`in_process`); more are refused with 429. */
  @IfPresent() @Min(1) @IsInt() max_queued_jobs = 10_000;
  /** Unfinished jobs one user (or all anonymous callers together) may have; more are refused with 429. */
  @IfPresent() @Min(1) @IsInt() max_active_jobs_per_user = 1000;
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; REDIS_URL when unset. */
  @IsOptional()
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'redis_url must be a redis:// or rediss:// URL' })
  redis_url?: string;
  /** The BullMQ queue name and key prefix (several deployments can share one Redis). */
  @IfPresent()
  @IsString()
  @Matches(BULLMQ_NAME, { message: 'queue_name: letters, digits, _ and -' })
  queue_name = 'interlude-jobs';
  @IfPresent()
  @IsString()
  @Matches(BULLMQ_NAME, { message: 'queue_prefix: letters, digits, _ and -' })
  queue_prefix = 'interlude';
  /** A worker that stops renewing its lock this long (killed, stuck) loses the job to another worker. */
  @IfPresent() @Min(1) @IsInt() lock_duration_seconds = 30;
  /** How often workers look for jobs whose worker died. */
  @IfPresent() @Min(1) @IsInt() stalled_interval_seconds = 30;
  /** How often a worker checks whether a job it runs was cancelled. */
  @IfPresent() @Min(0.05) @Max(60) cancel_check_seconds = 1;
  /** How often finished jobs past `expires_at` lose their output (the row and status stay). */
  @IfPresent() @Min(1) @IsInt() expiry_sweep_seconds = 60;
  /** The final status of every job is POSTed here (JSON). Empty: no webhook. */
  @IsOptional()
  @ValidateIf((o: AsyncConfig) => o.webhook_url !== '')
  @IsString()
  @Matches(/^https?:\/\//, { message: 'webhook_url must be an http(s) URL' })
  webhook_url?: string | null;
  /**
   * Hosts a job's own `webhook_url` may name (`*.example.com` for subdomains); empty: none may. A list
   * of its own: a private or loopback address is still refused unless `general.outbound.allow_hosts`
   * allows it, checked after DNS like every outbound call.
   */
  @IfPresent() @IsArray() @IsString({ each: true }) webhook_allow_hosts: string[] = [];
  /**
   * Signs each delivery the Standard Webhooks way: `webhook-signature: v1,<base64 HMAC-SHA256 of
   * "<webhook-id>.<webhook-timestamp>.<body>">`. A `whsec_<base64>` secret is the bytes it encodes.
   */
  @IsOptional() @IsString() webhook_secret?: string;
  @IfPresent() @Min(1) @Max(20) @IsInt() webhook_max_attempts = 5;
  /** The first retry's delay; each next one doubles. */
  @IfPresent() @Min(0.01) webhook_backoff_seconds = 1;
  @IfPresent() @Min(0.1) webhook_timeout_seconds = 10;
}

/** How job webhooks and A2A push notifications go out, from `general.async`. */
export function webhookSettingsOf(settings: AsyncConfig): WebhookSettings {
  return {
    allowHosts: settings.webhook_allow_hosts,
    secret: settings.webhook_secret || undefined,
    maxAttempts: settings.webhook_max_attempts,
    backoffSeconds: settings.webhook_backoff_seconds,
    timeoutSeconds: settings.webhook_timeout_seconds,
  };
}

/** `general.evaluation`: where `POST /evaluate` may read evaluation configs from. */
export class EvaluationConfig {
  /** `config_file` must resolve inside this directory (relative to the working directory). */
  @IfPresent() @IsString() config_dir = 'config';
}
