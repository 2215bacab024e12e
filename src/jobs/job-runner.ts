import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ServerConfig } from '../config/server-config';
import type { StartOptions } from '../executions/model/execution';
import { ExecutionService } from '../executions/engine/execution.service';
import type { FaceRef } from '../executions/model/execution-record';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { evaluationConfigOfJob } from './evaluation-config-path';
import { EvaluationRunner } from './evaluation/evaluation-runner';
import { JobEvents } from './job-events';
import { CANCELLED, endOf, pauseOf, type JobEnd } from './job-progress';
import { isFinal, type Job, type JobTicket } from './job-record';
import { JobStore } from './job.store';
import { JobFinished } from './job-finished';
import { JobSlots, type Slot } from './job-slots';
import { whileStoreAway } from '../core/errors/while-store-away';

/**
 * The face a job's execution is recorded under: the workflow API's generate face (looked up by name,
 * as any replica does), so `GET /executions/{id}` shows a waiting job's execution as `/v1/workflow` would.
 */
export const JOB_FACE: FaceRef = {
  name: 'generate',
  options: { steps: { raw: 'all' }, errors: 'event', interactive: true },
};

/** What the caller of `run` hears of the job while it runs. */
export interface RunHooks {
  /** The job waits for a person (called at each wait). */
  parked?: () => void;
}

/**
 * Runs one job to its end on the ExecutionService every face uses, as the identity that submitted it
 * with the request it was submitted with, and keeps its row current: running, waiting for a person,
 * final status. Used by the in-process queue and by `interlude worker`.
 */
@Injectable()
export class JobRunner {
  private readonly logger = new Logger('Jobs');
  private readonly urls: ExecutionUrls;
  /** Jobs this process runs or has queued, by internal id: how to stop each one. */
  private readonly running = new Map<string, AbortController>();
  /** Jobs waiting for their first slot (a shutdown drops them: the next start-up marks their rows). */
  private readonly queued = new Set<AbortController>();
  /**
   * Whether a job's workflow may ask a person: when the job runs in the server that receives the
   * answer (`in_process`), or on the shared store (`general.executions.store: postgres`), whose records
   * and wake-ups reach a worker from any server; else a worker's prompt would be answered nowhere.
   */
  private readonly interactive: boolean;
  private readonly inProcess: boolean;
  readonly slots: JobSlots;
  /** Once the server stops, runs that end (cancelled by the shutdown) leave their rows alone. */
  private stopping = false;

  constructor(
    private readonly store: JobStore,
    private readonly executions: ExecutionService,
    private readonly events: JobEvents,
    private readonly bus: EventEmitter2,
    private readonly config: ServerConfig,
    @Optional() @Inject(EvaluationRunner) private readonly evaluation?: EvaluationRunner,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
    const settings = config.general.async;
    this.inProcess = settings.queue === 'in_process';
    this.interactive = this.inProcess || config.general.executions.store === 'postgres';
    this.slots = new JobSlots({
      concurrency: settings.max_concurrent_jobs ?? config.frontEnd.max_running_async_jobs,
      perUser: settings.max_running_jobs_per_user,
      anonymous: settings.max_running_anonymous_jobs,
    });
  }

  get active(): number {
    return this.slots.active;
  }

  /** Jobs waiting for their first slot. */
  get waiting(): number {
    return this.slots.queued;
  }

  /**
   * Runs the job, once it has a slot (see JobSlots), unless it was cancelled or ended meanwhile.
   * Resolves once its row has its end.
   */
  async run(ticket: JobTicket, hooks: RunHooks = {}): Promise<void> {
    const queued = await this.whileStoreAway(`job ${ticket.id}`, undefined, () => this.store.get(ticket.id));
    // Not submitted: run again after its runner died (at least once), unless it ended meanwhile.
    if (!queued || isFinal(queued.status) || this.stopping) return;
    const abort = new AbortController();
    this.running.set(queued.id, abort);
    this.queued.add(abort);
    let slot: Slot;
    try {
      slot = await this.slots.take(queued.ownerId, abort.signal, (reason) => this.hold(queued.id, reason));
    } catch {
      this.running.delete(queued.id);
      return;
    } finally {
      this.queued.delete(abort);
    }
    // A job taken is started once the store is back (a PostgreSQL restart), not failed.
    const job = await this.whileStoreAway(`job ${queued.jobId}'s start`, abort.signal, async () =>
      (await this.store.start(queued.id)) ? this.store.get(queued.id) : undefined,
    ).catch((err: unknown) => {
      slot.end();
      this.running.delete(queued.id);
      throw err;
    });
    if (!job) {
      slot.end();
      this.running.delete(queued.id);
      return;
    }
    this.events.changed(job.id);
    // A worker learns of a cancel from the row; in the server, the cancel calls `cancel` here.
    const stopWatching = this.inProcess ? () => undefined : this.watchForCancel(job.id, abort);
    let end: JobEnd;
    try {
      end =
        job.kind === 'workflow'
          ? await this.runWorkflow(job, ticket, abort.signal, slot, hooks)
          : await this.runEvaluation(job, abort.signal);
    } catch (err) {
      end = abort.signal.aborted ? CANCELLED : { status: 'failure', error: (err as Error).message };
    } finally {
      stopWatching();
      slot.end();
      this.running.delete(job.id);
    }
    if (this.stopping) return;
    // The end is recorded once the store is back (a PostgreSQL restart): the job's result is not lost.
    const finished = await this.whileStoreAway(`job ${job.jobId}'s end`, undefined, () =>
      this.store.finish(job.id, end),
    );
    if (finished) this.bus.emit(JobFinished.event, new JobFinished(finished));
    this.events.changed(job.id);
  }

  /** Stops the job if this process runs it. */
  cancel(id: string): void {
    this.running.get(id)?.abort(new Error('cancelled'));
  }

  /** The server stops: the jobs it runs, and those still queued, are left for the next start-up to mark. */
  stop(): void {
    this.stopping = true;
    for (const queued of [...this.queued]) queued.abort(new Error('server stopping'));
  }

  /** Why a job of `ownerId` would not start now (its owner runs their share); undefined when it would. */
  heldReason(ownerId: string | null): string | undefined {
    return this.slots.atCap(ownerId) ? this.slots.heldReason(ownerId) : undefined;
  }

  /**
   * A submitted job held back by its owner's share: its status body says why (written once the store is
   * back, while the job has not started: the store writes it only over a submitted job).
   */
  hold(id: string, reason: string): void {
    this.whileStoreAway(`job ${id}'s hold`, undefined, () => this.store.hold(id, reason))
      .then((held) => held && this.events.changed(id))
      .catch((err: unknown) => this.logger.error(`job ${id}: ${(err as Error).message}`));
  }

  private async runWorkflow(
    job: Job,
    ticket: JobTicket,
    signal: AbortSignal,
    slot: Slot,
    hooks: RunHooks,
  ): Promise<JobEnd> {
    // Its execution's record is written once the store is back, as the job's own row is.
    const execution = await this.whileStoreAway(`job ${job.jobId}'s execution`, signal, () =>
      this.executions.start(job.input, job.identity, this.startOptions(ticket, slot, hooks)),
    );
    if (!execution) return CANCELLED;
    // Row updates for pauses run one after another, and before the final one.
    let updates = Promise.resolve();
    const unsubscribe = execution.events.subscribe((event) => {
      const pause = pauseOf(execution.id, event, this.urls);
      if (pause === undefined) return;
      // A person is sent to this execution: its record must outlive the run for their poll or answer.
      if (pause) execution.expose();
      updates = updates
        .then(() =>
          this.whileStoreAway(`job ${job.jobId}'s pause`, signal, () => this.store.pause(job.id, pause)),
        )
        .then(() => this.events.changed(job.id))
        .catch((err: unknown) => this.logger.error(`job ${job.jobId}: ${(err as Error).message}`));
    });
    const onAbort = () => void execution.cancel('job cancelled');
    signal.addEventListener('abort', onAbort);
    try {
      const terminal = await execution.done;
      await updates;
      return signal.aborted ? CANCELLED : endOf(terminal);
    } finally {
      signal.removeEventListener('abort', onAbort);
      queueMicrotask(unsubscribe);
    }
  }

  private startOptions(ticket: JobTicket, slot: Slot, hooks: RunHooks): StartOptions {
    return {
      request: ticket.request,
      interactive: this.interactive,
      streaming: false,
      face: JOB_FACE,
      // A job whose runner dies is started again by the queue; a takeover would run it twice.
      durable: false,
      // Waiting for a person, the job holds no slot: others run meanwhile.
      personWaits: {
        paused: () => {
          slot.release();
          hooks.parked?.();
        },
        resumed: () => slot.again(),
      },
    };
  }

  /**
   * Retries a write of the job's while its store is away (see whileStoreAway); undefined once the
   * server stops or, when given, `signal` aborts (the job was cancelled meanwhile).
   */
  private whileStoreAway<T>(what: string, signal: AbortSignal | undefined, write: () => Promise<T>) {
    return whileStoreAway(what, write, this.logger, {
      stopped: () => this.stopping || signal?.aborted === true,
    });
  }

  private async runEvaluation(job: Job, signal: AbortSignal): Promise<JobEnd> {
    if (!this.evaluation) return { status: 'failure', error: 'Evaluation is not available on this server' };
    const outcome = await this.evaluation.run({
      jobId: job.jobId,
      configFile: evaluationConfigOfJob(job.configFile ?? '', this.config.general.evaluation.config_dir),
      reps: job.reps ?? 1,
      identity: job.identity,
      signal,
    });
    if (signal.aborted) return CANCELLED;
    return { status: 'success', output: { averages: outcome.averages }, outputPath: outcome.outputPath };
  }

  /** A worker learns of a cancel from the row (the DELETE reached a server, not this process). */
  private watchForCancel(id: string, abort: AbortController): () => void {
    const timer = setInterval(() => {
      this.store
        .status(id)
        .then((status) => {
          if (status === 'interrupted') abort.abort(new Error('cancelled'));
        })
        .catch(() => undefined);
    }, this.config.general.async.cancel_check_seconds * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }
}
