import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppError, ErrorCode } from '../../core/errors/app-error';
import type { Identity } from '../../core/identity/identity';
import { newTraceId } from '../../core/tracing/observability-trace';
import { ServerConfig } from '../../config/server-config';
import { alreadyResolved, InteractionService } from '../../interactions/interaction.service';
import { answeredRecord, currentRecord, executionNotFound, ownedBy } from './execution-access';
import type { Execution, StartOptions } from '../model/execution';
import { checkCapacity } from './execution-capacity';
import { EventLogs } from '../event-log/event-log';
import { WorkflowInstances } from './workflow-instances';
import { cancelElsewhere, remoteExecution, startReleased } from './remote-execution';
import { ExecutionCancels } from './execution-cancels';
import { startingRecord, type ExecutionRecord } from '../model/execution-record';
import { deferredJournal, storeDeferred } from './deferred-record';
import { announceAnswered, announceStarted } from './lifecycle-events';
import { isTerminalStatus } from '../model/execution-state';
import { ExecutionStore } from '../store/execution.store';
import { TraceOwners } from '../store/trace-owners';
import type { ExecutionEndings } from './execution-endings';
import { DurableRuns } from '../durability/durable-runs';
import { runSpecOf, type RunSpec } from '../model/run-spec';
import { ExecutionTakeover } from '../durability/execution-takeover';
import { journalOf } from '../durability/journal-writes';
import { RunningExecutions } from './running-executions';
import { ExecutionRunner, spanOf } from './execution-runner';

/** The one execution engine every face uses: starts workflows, records them, streams their events. */
@Injectable()
export class ExecutionService
  implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('ExecutionService');
  private sweeper?: NodeJS.Timeout;
  /** Writes the durable runs nobody can name yet once they outlive `durable_after_seconds`. */
  private ager?: NodeJS.Timeout;
  private readonly endings: ExecutionEndings;
  private readonly durableAfterMs: number;

  constructor(
    private readonly store: ExecutionStore,
    private readonly eventLogs: EventLogs,
    private readonly interactions: InteractionService,
    private readonly instances: WorkflowInstances,
    private readonly config: ServerConfig,
    private readonly traceOwners: TraceOwners,
    private readonly cancels: ExecutionCancels,
    /** Where the lifecycle is announced (core/events): metrics, spans, OAuth, instances listen. */
    private readonly bus: EventEmitter2,
    /** Durable waits (store: postgres): leases, claims and the journal; null in one process. */
    @Inject(DurableRuns) private readonly durable: DurableRuns | null,
    /** The executions this process runs (their registry) and what runs them. */
    private readonly running: RunningExecutions,
    private readonly runner: ExecutionRunner,
  ) {
    this.endings = runner.endings;
    this.durableAfterMs = config.general.executions.durable_after_seconds * 1000;
  }

  async onModuleInit(): Promise<void> {
    // A cancel asked on another replica, for an execution this one runs.
    await this.cancels.listen((id, reason) => {
      const entry = this.running.get(id);
      if (entry) void this.endings.cancel(entry, reason);
    });
    const ttl = this.config.general.execution_ttl_seconds * 1000;
    // A sweep the store fails (it is away) is tried again at the next tick; never an unhandled rejection.
    const sweep = () =>
      this.sweep().catch((err: Error) =>
        this.logger.warn(`Evicting expired executions failed: ${err.message}`),
      );
    this.sweeper = setInterval(() => void sweep(), Math.min(ttl, 30_000));
    this.sweeper.unref();
    const { durable, store, eventLogs } = this;
    if (!durable) return;
    if (this.durableAfterMs > 0) {
      this.ager = setInterval(() => this.storeAged(Date.now()), Math.min(1000, this.durableAfterMs / 2));
      this.ager.unref();
    }
    const stores = { store, eventLogs, durable, workflowType: this.config.workflow.type };
    await durable.start(new ExecutionTakeover(this.runner, stores));
  }

  /** The first hook of a close: nothing is swept while the stores close. */
  onModuleDestroy(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.ager) clearInterval(this.ager);
  }

  /** Writes the durable runs not written yet that started `durable_after_seconds` ago or earlier. */
  storeAged(now: number): Promise<unknown> {
    const due = now - this.durableAfterMs;
    const writes = [];
    for (const entry of this.running.all()) {
      const unstored = entry.unstored;
      if (unstored?.durable && unstored.record.createdAt <= due) writes.push(storeDeferred(entry));
    }
    return Promise.allSettled(writes);
  }

  /** Writes every durable run not written yet and waits for the writes under way. */
  private storeUnwritten(): Promise<unknown> {
    const writes = [];
    for (const entry of this.running.all()) {
      if (entry.unstored?.durable) writes.push(storeDeferred(entry));
      else if (entry.storing) writes.push(entry.storing);
    }
    return Promise.allSettled(writes);
  }

  /**
   * Before the database and Redis close, so the shared records say how these executions ended. Durable
   * runs are not ended: they are handed over (released for another replica to claim at once), and
   * their streams end with a hint to re-attach elsewhere. The others are cancelled.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.endings.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.ager) clearInterval(this.ager);
    if (this.durable) {
      // From here on a start is recorded released (another replica runs it), so none begins here late.
      this.durable.leave();
      // Durable runs nobody can name yet are handed over too: written first, released with the others;
      // so are those whose write is under way (their 202 may be on its way to the client).
      await this.storeUnwritten();
      this.runner.abandon();
      await this.durable.handOver();
    }
    const entries = this.running.all();
    await Promise.all(entries.map((entry) => this.endings.cancel(entry, 'server shutting down')));
  }

  onApplicationShutdown(): void {
    for (const entry of this.running.all()) {
      void this.endings.cancel(entry, 'server shutting down');
    }
  }

  async start(input: unknown, identity: Identity, options: StartOptions): Promise<Execution> {
    if (options.interactive) {
      await checkCapacity(this.store, this.config.general, identity, options.request.clientAddress);
    }
    const workflow = options.workflow ?? this.instances.acquire(identity);
    const trace = options.trace ?? { traceId: newTraceId() };
    const record = startingRecord(randomUUID(), trace.traceId, identity, workflow.type, options);
    this.traceOwners.record(trace.traceId, identity.userId);
    // Durable when a replica can run it again: the configured workflow, on the shared store.
    const spec =
      this.durable &&
      !options.workflow &&
      options.durable !== false &&
      runSpecOf(workflow.type, input, identity, options, trace);
    // This replica is handing its runs over, or cannot prove its lease holds: another one runs it.
    if (spec && !this.durable!.acting) {
      return this.startElsewhere({ record, spec, options, written: false }, workflow.type, identity);
    }
    const durableRun = spec ? { replica: this.durable!.replica, spec } : undefined;
    // Stored once needed (deferred-record.ts); a durable run also once it outlives durable_after_seconds.
    const deferred = options.deferRecord === true && (!spec || this.durableAfterMs > 0);
    if (!deferred) {
      await this.store.create(record, durableRun);
      // It began to hand its runs over during the write, so it would not hand this one over: released.
      if (spec && !this.durable!.acting) {
        return this.startElsewhere({ record, spec, options, written: true }, workflow.type, identity);
      }
    }
    announceStarted(this.bus, record, workflow.type, identity);

    const span = spanOf(record.id, workflow.type, identity, trace, options.request);
    const events = this.eventLogs.open(record.id, { held: deferred });
    const holder = options.workflow ? undefined : identity;
    const entry = this.runner.entryFor(record.id, trace.traceId, span, holder, events);
    if (spec) {
      const journal = this.durable!.journal;
      entry.journal = deferred
        ? deferredJournal(entry, journal, record.id, events)
        : journalOf(journal, record.id, [], events);
    }
    if (deferred) entry.unstored = { record, store: this.store, events, durable: durableRun };
    this.running.add(entry);
    options.beforeRun?.(entry.execution);
    // Closures made here would keep `options` alive for the whole run, and with it the face's closures
    // and the HTTP request they hold: the run is launched with only what it needs.
    const { request, streaming, interactive, interactiveRoute, personWaits } = options;
    const facts = { identity, request, trace, streaming, interactive, interactiveRoute, personWaits };
    this.runner.run(entry, workflow, input, facts);
    return entry.execution;
  }

  /** A durable run this replica does not run (it stops, or cannot prove its lease): another claims it. */
  private startElsewhere(
    start: { record: ExecutionRecord; spec: RunSpec; options: StartOptions; written: boolean },
    workflowType: string,
    identity: Identity,
  ): Promise<Execution> {
    const id = start.record.id;
    this.instances.release(identity);
    announceStarted(this.bus, start.record, workflowType, identity);
    const cancel = async (reason: string) => void (await this.cancels.request(id, reason));
    return startReleased(this.store, this.eventLogs, this.durable!, { ...start, cancel });
  }

  /** The execution if this process runs it or still holds its event log (see `attach` for any replica). */
  find(id: string): Execution | undefined {
    return this.running.get(id)?.execution;
  }

  /** Whether a client was handed this execution's id (its stream may then be re-attached). */
  isExposed(id: string): boolean {
    return this.running.get(id)?.exposed ?? false;
  }

  /**
   * The execution a client re-attaches to (its record read, so its owner checked): this process's
   * own once its id was handed out, else one another replica runs, followed through the shared log.
   */
  async attach(record: ExecutionRecord): Promise<Execution | undefined> {
    const entry = this.running.get(record.id);
    // One taken over holds only the events since; the shared log has them all.
    if (entry && !entry.adopted) return entry.exposed ? entry.execution : undefined;
    const remote = await remoteExecution(this.eventLogs, record, async (reason) => {
      if (entry) return this.endings.cancel(entry, reason);
      await this.cancels.request(record.id, reason);
    });
    if (remote && this.durable) remote.onHandover = (listener) => this.runner.handovers.listen(listener);
    return remote;
  }

  /** The record as its owner may see it (to read, not change); 404 for anyone else and for unknown ids. */
  async record(identity: Identity, id: string): Promise<Readonly<ExecutionRecord>> {
    // A run this replica runs and holds is read from memory while nobody else can change it; any
    // other from the store: a client polling replicas in turn never sees a status go back.
    const record = this.runner.ownRecord(id) ?? (await this.store.peek(id));
    if (!record || !ownedBy(record, identity)) throw executionNotFound(id);
    return record;
  }

  /** `DELETE /executions/{id}`: stops a running or waiting execution; its status becomes failed. */
  async cancel(identity: Identity, id: string): Promise<void> {
    const record = await currentRecord(this.store, identity, id);
    if (isTerminalStatus(record.status)) {
      throw new AppError(ErrorCode.Conflict, `Execution ${id} has already ended (${record.status})`);
    }
    const entry = this.running.get(id);
    if (!entry) return cancelElsewhere(this.store, this.cancels, id, 'cancelled by client');
    await this.endings.cancel(entry, 'cancelled by client');
  }

  /**
   * A person's answer, from any face: checked against the prompt, accepted once (the close is a
   * compare-and-set, so a second answer gets 400), then handed to the waiting workflow.
   */
  async respond(identity: Identity, executionId: string, interactionId: string, raw: unknown): Promise<void> {
    const record = await answeredRecord(this.store, identity, executionId, interactionId);
    const answer = this.interactions.accept(
      executionId,
      interactionId,
      record.interactions[interactionId],
      raw,
    );
    const closed = await this.store.apply(
      executionId,
      {
        kind: 'interaction_closed',
        interactionId,
        status: 'resolved',
        // Kept with the record, so a replica that takes the execution over finds it.
        answer: this.durable ? answer : undefined,
      },
      record,
    );
    if (closed === 'not_found') throw executionNotFound(executionId);
    if (closed !== 'applied') throw alreadyResolved(interactionId);
    announceAnswered(this.bus, executionId, interactionId);
    await this.interactions.deliver(executionId, interactionId, answer);
  }

  /** Evicts expired records and the event logs kept for them. */
  sweep(now = Date.now()): Promise<void> {
    return this.endings.sweep(now);
  }
}
