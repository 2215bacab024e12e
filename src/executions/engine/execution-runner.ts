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
import { Handovers } from '../durability/execution-handover';
import type { ResumedRun, TakeoverEngine } from '../durability/execution-takeover';
import type { EventLog } from '../event-log/event-log';
import type { PersonWaits } from '../model/execution';
import { ExecutionStore } from '../store/execution.store';
import { applyOnceStored, storeDeferred } from './deferred-record';
import { announcingWaits } from './lifecycle-events';
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

  constructor(
    private readonly running: RunningExecutions,
    store: ExecutionStore,
    interactions: InteractionService,
    oauth: OAuthService,
    private readonly instances: WorkflowInstances,
    config: ServerConfig,
    /** Where the lifecycle is announced (core/events): metrics, spans, OAuth, instances listen. */
    bus: EventEmitter2,
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
    if (this.durable) entry.execution.onHandover = (listener) => this.handovers.listen(listener);
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
    this.endings.settle(
      entry,
      entry.span.run(() => launch(workflow, input, init)),
    );
  }

  runs(executionId: string): boolean {
    return this.running.has(executionId);
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
    this.running.add(entry);
    this.run(entry, workflow, spec.input, spec);
  }

  /** Stops the durable runs here, recording nothing; their streams end so that clients re-attach elsewhere. */
  abandon(): void {
    for (const entry of this.running.all()) {
      if (!entry.journal || entry.ended) continue;
      entry.handedOver = entry.ended = true;
      entry.journal.close();
      this.running.remove(entry.execution.id);
      entry.abort.abort(new HandedOver());
      this.endings.handedOver(entry);
    }
    this.handovers.fire();
  }
}
