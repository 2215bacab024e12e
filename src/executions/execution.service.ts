import { randomUUID } from 'node:crypto';
import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { AppError, ErrorCode, WorkflowError } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import { startExecutionSpan, type ExecutionSpan } from '../core/tracing/execution-spans';
import { newTraceId } from '../core/tracing/observability-trace';
import { ServerConfig } from '../config/server-config';
import { alreadyResolved, InteractionService } from '../interactions/interaction.service';
import { executionNotFound, ownedBy } from './execution-access';
import { ExecutionCancelled, type Execution, type StartOptions } from './execution';
import { sinkFor, type WaitDeps } from './execution-sink';
import { launch, newEntry, signalOf, type Ending, type Entry } from './execution-entry';
import type { RunInit } from '../runtime/workflow-runner';
import type { ExecutionEventBody } from '../runtime/execution-event';
import { checkCapacity } from './execution-capacity';
import { EventLogs } from './event-log';
import { OAuthService } from '../oauth/oauth.service';
import { WorkflowInstances } from './workflow-instances';
import { cancelElsewhere, remoteExecution } from './remote-execution';
import { ExecutionCancels, LocalExecutionCancels } from './execution-cancels';
import type { ExecutionRecord } from './execution-record';
import { isTerminalStatus } from './execution-state';
import { ExecutionStore } from './execution.store';
import { TraceOwners } from './trace-owners';

/** The one execution engine every face uses: starts workflows, records them, streams their events. */
@Injectable()
export class ExecutionService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(ExecutionService.name);
  /** Live executions, and finished ones whose id a client holds, until their record expires. */
  private readonly entries = new Map<string, Entry>();
  /** How the runs' prompts and authorizations reach interactions and OAuth, and are recorded. */
  private readonly waits: WaitDeps;
  private sweeper?: NodeJS.Timeout;
  /** Since start-up, for /metrics. */
  readonly counts = { started: 0, completed: 0, failed: 0, cancelled: 0 };

  constructor(
    private readonly store: ExecutionStore,
    private readonly eventLogs: EventLogs,
    private readonly interactions: InteractionService,
    private readonly instances: WorkflowInstances,
    private readonly oauth: OAuthService,
    private readonly config: ServerConfig,
    @Optional() private readonly traceOwners?: TraceOwners,
    @Optional() private readonly cancels: ExecutionCancels = new LocalExecutionCancels(),
  ) {
    this.waits = {
      interactions,
      oauth,
      defaultPromptTimeout: config.general.default_prompt_timeout_seconds,
      record: (id, wait) => this.store.apply(id, wait),
    };
  }

  async onModuleInit(): Promise<void> {
    // A cancel asked on another replica, for an execution this one runs.
    await this.cancels.listen((id, reason) => {
      const entry = this.entries.get(id);
      if (entry) void this.cancelEntry(entry, reason);
    });
    const ttl = this.config.general.execution_ttl_seconds * 1000;
    this.sweeper = setInterval(() => void this.sweep(), Math.min(ttl, 30_000));
    this.sweeper.unref();
  }

  /** Before the database and Redis close, so the shared records say how these executions ended. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const entries = [...this.entries.values()];
    await Promise.all(entries.map((entry) => this.cancelEntry(entry, 'server shutting down')));
  }

  onApplicationShutdown(): void {
    for (const entry of this.entries.values()) {
      void this.cancelEntry(entry, 'server shutting down');
    }
  }

  async start(input: unknown, identity: Identity, options: StartOptions): Promise<Execution> {
    if (options.interactive) {
      await checkCapacity(this.store, this.config.general, identity, options.request.clientAddress);
    }
    const workflow = options.workflow ?? this.instances.acquire(identity);
    const now = Date.now();
    const trace = options.trace ?? { traceId: newTraceId() };
    const record: ExecutionRecord = {
      id: randomUUID(),
      traceId: trace.traceId,
      ownerId: identity.userId,
      clientAddress: options.request.clientAddress,
      workflow: workflow.type,
      face: options.face,
      status: 'running',
      interactive: options.interactive,
      createdAt: now,
      updatedAt: now,
      interactions: {},
    };
    this.traceOwners?.record(trace.traceId, identity.userId);
    await this.store.create(record);
    this.counts.started++;

    const span = startExecutionSpan({
      executionId: record.id,
      workflow: workflow.type,
      userId: identity.userId,
      trace,
      headers: options.request.headers,
    });
    const entry = this.entryFor(record.id, trace.traceId, span, options.workflow ? undefined : identity);
    this.entries.set(record.id, entry);
    options.beforeRun?.(entry.execution);
    // Closures made here would keep `options` alive for the whole run, and with it the face's closures
    // and the HTTP request they hold: the run is launched from helpers that capture only what it needs.
    const sink = sinkFor(entry, this.waits, {
      interactive: options.interactive,
      interactiveRoute: options.interactiveRoute,
      path: options.request.path,
      identity,
    });
    const init: RunInit = {
      executionId: record.id,
      identity,
      request: options.request,
      trace,
      steps: span.steps,
      signal: signalOf(entry.abort),
      streaming: options.streaming ?? true,
      sink,
    };
    void this.settle(
      entry,
      span.run(() => launch(workflow, input, init)),
    );
    return entry.execution;
  }

  private entryFor(id: string, traceId: string, span: ExecutionSpan, holder: Identity | undefined): Entry {
    return newEntry(id, traceId, span, holder, this.eventLogs.open(id), (entry, reason) =>
      this.cancelEntry(entry, reason),
    );
  }

  /** The execution if this process runs it or still holds its event log (see `attach` for any replica). */
  find(id: string): Execution | undefined {
    return this.entries.get(id)?.execution;
  }

  /** Whether a client was handed this execution's id (its stream may then be re-attached). */
  isExposed(id: string): boolean {
    return this.entries.get(id)?.exposed ?? false;
  }

  /**
   * The execution a client re-attaches to (its record read, so its owner checked): this process's
   * own once its id was handed out, else one another replica runs, followed through the shared log.
   */
  async attach(record: ExecutionRecord): Promise<Execution | undefined> {
    const entry = this.entries.get(record.id);
    if (entry) return entry.exposed ? entry.execution : undefined;
    return remoteExecution(this.eventLogs, record, async (reason) => {
      await this.cancels.request(record.id, reason);
    });
  }

  /** The record as its owner may see it; 404 for anyone else and for unknown ids. */
  async record(identity: Identity, id: string): Promise<ExecutionRecord> {
    const record = await this.store.get(id);
    if (!record || !ownedBy(record, identity)) throw executionNotFound(id);
    return record;
  }

  /** `DELETE /executions/{id}`: stops a running or waiting execution; its status becomes failed. */
  async cancel(identity: Identity, id: string): Promise<void> {
    const record = await this.record(identity, id);
    if (isTerminalStatus(record.status)) {
      throw new AppError(ErrorCode.Conflict, `Execution ${id} has already ended (${record.status})`);
    }
    const entry = this.entries.get(id);
    if (!entry) return cancelElsewhere(this.store, this.cancels, id, 'cancelled by client');
    await this.cancelEntry(entry, 'cancelled by client');
  }

  /**
   * A person's answer, from any face: checked against the prompt, accepted once (the close is a
   * compare-and-set, so a second answer gets 400), then handed to the waiting workflow.
   */
  async respond(identity: Identity, executionId: string, interactionId: string, raw: unknown): Promise<void> {
    const record = await this.record(identity, executionId);
    const answer = this.interactions.accept(
      executionId,
      interactionId,
      record.interactions[interactionId],
      raw,
    );
    const closed = await this.store.apply(executionId, {
      kind: 'interaction_closed',
      interactionId,
      status: 'resolved',
    });
    if (closed !== 'applied') throw alreadyResolved(interactionId);
    await this.interactions.deliver(interactionId, answer);
  }

  /** Turns the workflow's outcome into its terminal event and record (unless it was cancelled first). */
  private async settle(entry: Entry, run: Promise<unknown>): Promise<void> {
    let end: Ending;
    let terminal: ExecutionEventBody;
    try {
      const result = await run;
      this.releaseInstance(entry);
      if (entry.ended) return;
      terminal = { kind: 'completed', result, streamed: entry.streamed };
      entry.span.end({ kind: 'completed' });
      this.counts.completed++;
      end = { kind: 'completed', result };
    } catch (err) {
      this.releaseInstance(entry);
      if (entry.ended) return;
      const failure = WorkflowError.from(err);
      const error = { message: failure.message, type: failure.extra.errorType ?? 'Error' };
      terminal = { kind: 'failed', error };
      entry.span.end({ kind: 'failed', ...error });
      this.counts.failed++;
      end = { kind: 'failed', error };
    }
    entry.ended = true;
    // Anything the workflow left waiting (a prompt raced by a parallel branch) is closed with it.
    if (entry.waiting > 0) entry.abort.abort(new ExecutionCancelled('execution ended'));
    await this.finish(entry, end, terminal);
  }

  private releaseInstance(entry: Entry): void {
    if (entry.holder) this.instances.release(entry.holder);
    entry.holder = undefined;
  }

  private async cancelEntry(entry: Entry, reason: string): Promise<void> {
    if (entry.ended) return;
    entry.ended = true;
    entry.abort.abort(new ExecutionCancelled(reason));
    entry.execution.events.append({ kind: 'cancelled', reason });
    entry.span.end({ kind: 'cancelled', reason });
    this.counts.cancelled++;
    await this.finish(entry, {
      kind: 'failed',
      error: { message: 'Execution cancelled', type: 'ExecutionCancelled' },
    });
  }

  /**
   * Records the end; `terminal` (unless already appended) ends the stream only once the record says
   * so, so a client that polls when its stream ends sees the end whichever replica it asks.
   */
  private async finish(entry: Entry, end: Ending, terminal?: ExecutionEventBody): Promise<void> {
    const { id, events } = entry.execution;
    this.oauth.forgetExecution(id);
    try {
      if (!entry.exposed) {
        if (terminal) events.append(terminal);
        this.entries.delete(id);
        events.dispose();
        await this.store.delete(id);
        return;
      }
      entry.expiresAt = Date.now() + this.config.general.execution_ttl_seconds * 1000;
      await this.store.apply(id, { ...end, expiresAt: entry.expiresAt });
    } catch (err) {
      this.logger.error(`Could not record the end of execution ${id}: ${(err as Error).message}`);
    } finally {
      if (terminal && entry.exposed) events.append(terminal);
    }
  }

  /** Evicts expired records and the event logs kept for them. */
  async sweep(now = Date.now()): Promise<void> {
    await this.store.evictExpired(now);
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        this.entries.delete(id);
        entry.execution.events.dispose();
      }
    }
  }
}
