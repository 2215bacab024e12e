import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Identity } from '../../core/identity/identity';
import { startExecutionSpan, type ExecutionSpan } from '../../core/tracing/execution-spans';
import type { ObservabilityTrace } from '../../core/tracing/observability-trace';
import { ServerConfig } from '../../config/server-config';
import { InteractionService } from '../../interactions/interaction.service';
import { OAuthService } from '../../oauth/oauth.service';
import type { BuiltFunction } from '../../runtime/function-type';
import { HandedOver } from '../../runtime/run-journal';
import type { RequestMetadata } from '../../runtime/workflow-context';
import type { RunInit } from '../../runtime/workflow-runner';
import { DurableRuns } from '../durability/durable-runs';
import { Handovers } from '../durability/handovers';
import { Fenced } from '../durability/journal';
import type { ResumedRun, TakeoverEngine } from '../durability/execution-takeover';
import type { EventLog } from '../event-log/event-log';
import type { PersonWaits } from '../model/execution';
import type { ExecutionRecord } from '../model/execution-record';
import { ExecutionStore } from '../store/execution.store';
import { applyOnceStored, storeDeferred } from './deferred-record';
import { announceTakenOver, announcingWaits } from './lifecycle-events';
import { ExecutionEndings } from './execution-endings';
import { launch, newEntry, signalOf, type CancelEntry, type Entry } from './execution-entry';
import { routeOf, sinkFor, type WaitDeps } from './execution-sink';
import { RunningExecutions } from './running-executions';
import { WorkflowInstances } from './workflow-instances';

/** What a run is launched with: from a face's start options, or from the run spec of one taken over. */
export interface RunFacts {
  identity: Identity;
  request: RequestMetadata;
  trace: ObservabilityTrace;
  streaming?: boolean;
  interactive: boolean;
  interactiveRoute?: string;
  personWaits?: PersonWaits;
}

/** The span of a run (started, or taken over). */
export function spanOf(
  executionId: string,
  workflow: string,
  identity: Identity,
  trace: ObservabilityTrace,
  request: RequestMetadata,
): ExecutionSpan {
  return startExecutionSpan({
    executionId,
    workflow,
    userId: identity.userId,
    trace,
    headers: request.headers,
  });
}

/**
 * Runs the workflows of the executions this process holds: makes each one's entry, launches its run
 * with the sink its events, prompts and authorizations go through, and settles it into its end. Also
 * what a takeover sees of the engine: it goes on with runs claimed from a replica that is gone, and
 * stops this replica's durable runs when another is to go on with them.
 */
@Injectable()
export class ExecutionRunner implements TakeoverEngine {
  /** How the runs end: their terminal event, their record, what they held. */
  readonly endings: ExecutionEndings;
  /** Streams told to let their client re-attach elsewhere when this replica hands its runs over. */
  readonly handovers = new Handovers();
  /** How the runs' prompts and authorizations reach interactions and OAuth, and are recorded. */
  private readonly waits: WaitDeps;
  /** One function for every entry (a closure per execution would be kept as long as it waits). */
  private readonly cancelEntry: CancelEntry = (entry, reason) => this.endings.cancel(entry, reason);
  /** Stops a durable run whose journal write was refused: another replica claimed it (one function for all). */
  private readonly fenced = (err: unknown) =>
    err instanceof Fenced && this.abandon(new Set([err.executionId]));

  constructor(
    private readonly running: RunningExecutions,
    private readonly store: ExecutionStore,
    interactions: InteractionService,
    oauth: OAuthService,
    private readonly instances: WorkflowInstances,
    config: ServerConfig,
    /** Where the lifecycle is announced (core/events): metrics, spans, OAuth, instances listen. */
    private readonly bus: EventEmitter2,
    /** Durable waits (store: postgres): leases, claims and the journal; null in one process. */
    @Inject(DurableRuns) private readonly durable: DurableRuns | null,
  ) {
    this.waits = {
      interactions,
      oauth,
      defaultPromptTimeout: config.general.default_prompt_timeout_seconds,
      record: announcingWaits(applyOnceStored(running, store), running, bus),
      read: async (id, interactionId) => (await store.get(id))?.interactions[interactionId],
    };
    const deps = { store, bus, ttlSeconds: config.general.execution_ttl_seconds };
    this.endings = new ExecutionEndings(running, { ...deps, journal: durable?.journal });
  }

  /** A new execution's entry, not registered yet. */
  entryFor(
    id: string,
    traceId: string,
    span: ExecutionSpan,
    holder: Identity | undefined,
    events: EventLog,
  ): Entry {
    const entry = newEntry(id, traceId, span, holder, events, this.cancelEntry);
    if (this.durable) {
      // Only a run handed over wakes its face: one not written yet (no replica could claim it), or
      // not stopped here (another was), goes on here.
      entry.execution.onHandover = (listener) => this.handovers.listen(() => entry.handedOver && listener());
    }
    return entry;
  }

  /** Runs the workflow of a registered entry; its outcome becomes the execution's end. */
  run(entry: Entry, workflow: BuiltFunction, input: unknown, facts: RunFacts): void {
    const init: RunInit = {
      executionId: entry.execution.id,
      onIdRead: entry.unstored && (() => void storeDeferred(entry)),
      identity: facts.identity,
      request: facts.request,
      trace: facts.trace,
      steps: entry.span.steps,
      signal: signalOf(entry.abort),
      streaming: facts.streaming ?? true,
      sink: sinkFor(entry, this.waits, routeOf(facts, facts.identity, workflow.type)),
      journal: entry.journal,
    };
    const run = entry.span.run(() => launch(workflow, input, init));
    // A durable run whose journal write was fenced (another replica claimed it): stopped, not failed.
    if (entry.journal) run.catch(this.fenced);
    this.endings.settle(entry, run);
  }

  runs(executionId: string): boolean {
    return this.running.has(executionId);
  }

  /**
   * The record of a run this replica runs and holds, from memory when no other replica can have
   * changed it (own-records.ts); undefined: read the store.
   */
  ownRecord(id: string): Readonly<ExecutionRecord> | undefined {
    const entry = this.running.get(id);
    if (!entry || entry.ended) return undefined;
    // A durable run can be claimed by another replica once this one's lease may have run out.
    if (entry.journal && !this.durable?.holdsRuns) return undefined;
    return this.store.held(id);
  }

  refuse(run: { id: string; traceId: string }, error: { message: string; type: string }): Promise<void> {
    return this.endings.refuse(run, error);
  }

  resume({ record, spec, events, journal, logged }: ResumedRun): void {
    const workflow = this.instances.acquire(spec.identity);
    const span = spanOf(record.id, workflow.type, spec.identity, spec.trace, spec.request);
    const entry = this.entryFor(record.id, record.traceId, span, spec.identity, events);
    entry.journal = journal;
    entry.logged = logged;
    entry.exposed = entry.adopted = true;
    // Whatever this replica wrote of it before, another one may have changed since.
    this.store.forget([record.id]);
    this.running.add(entry);
    // Before it runs: a listener that follows the execution here misses none of its events.
    announceTakenOver(this.bus, record.id);
    this.run(entry, workflow, spec.input, spec);
  }

  /**
   * Stops the durable runs here (or those of `ids`), recording nothing; their streams end so that
   * clients re-attach elsewhere. Returns the ids of the runs it stopped.
   */
  abandon(ids?: ReadonlySet<string>): string[] {
    const stopped: string[] = [];
    for (const entry of this.running.all()) {
      // One not written yet, or whose record is still being written, cannot be claimed by another
      // replica (none can read it yet): it ends here.
      const unwritten = entry.unstored !== undefined || entry.storing !== undefined;
      if (!entry.journal || entry.ended || unwritten || (ids && !ids.has(entry.execution.id))) continue;
      entry.handedOver = entry.ended = true;
      entry.journal.close();
      this.running.remove(entry.execution.id);
      entry.abort.abort(new HandedOver());
      this.endings.handedOver(entry);
      stopped.push(entry.execution.id);
    }
    this.store.forget(stopped);
    if (!ids || stopped.length) this.handovers.fire();
    return stopped;
  }
}
