import { randomUUID } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { parseConfig } from '../../src/config/config.loader';
import { ServerConfig } from '../../src/config/server-config';
import { ExecutionFinished, ExecutionStarted } from '../../src/core/events/execution-events';
import type { Identity } from '../../src/core/identity/identity';
import { ExecutionSpanEnds } from '../../src/core/tracing/execution-span-ends';
import { MemoryEventLogs } from '../../src/executions/event-log/execution-event-log';
import type { ExecutionRecord } from '../../src/executions/model/execution-record';
import { ExecutionService } from '../../src/executions/engine/execution.service';
import type { ExecutionStore } from '../../src/executions/store/execution.store';
import { MemoryExecutionStore } from '../../src/executions/store/memory-execution.store';
import { WorkflowInstances } from '../../src/executions/engine/workflow-instances';
import { ExecutionRunner } from '../../src/executions/engine/execution-runner';
import { LocalExecutionCancels } from '../../src/executions/engine/execution-cancels';
import { RunningExecutions } from '../../src/executions/engine/running-executions';
import { TraceOwners } from '../../src/executions/store/trace-owners';
import { Database } from '../../src/db/database';
import {
  InProcessInteractionBroker,
  type InteractionBroker,
} from '../../src/interactions/interaction.broker';
import type {
  InteractionRecord,
  InteractionWait,
  WaitOutcome,
} from '../../src/interactions/interaction-record';
import { InteractionService } from '../../src/interactions/interaction.service';
import { ExecutionCounts } from '../../src/monitoring/execution-counts';
import { OAuthService } from '../../src/oauth/oauth.service';
import { MemoryOAuthTokens } from '../../src/oauth/oauth-tokens';
import { MemoryOAuthWakeups } from '../../src/oauth/oauth-wakeups';
import { MemoryPendingOAuthFlows } from '../../src/oauth/pending-oauth-flows';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import type { ExecutionEventBody } from '../../src/runtime/execution-event';
import { DEFAULT_PROMPT_ERROR, type Prompt, type PromptOption } from '../../src/runtime/prompts';

/** An execution that has just started, owned by nobody unless `overrides` says so. */
export function anExecutionRecord(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const now = Date.now();
  return {
    id: randomUUID(),
    traceId: randomUUID(),
    ownerId: null,
    workflow: 'scripted',
    status: 'running',
    interactive: true,
    createdAt: now,
    updatedAt: now,
    interactions: {},
    ...overrides,
  };
}

export function anIdentity(userId: string | null = 'alice'): Identity {
  return { userId, source: userId === null ? 'anonymous' : 'api_key', claims: {} };
}

export const options = (...ids: string[]): PromptOption[] =>
  ids.map((id) => ({ id, label: id.toUpperCase(), value: `v${id}` }));

/** A prompt as `toPrompt` makes it: NAT's defaults filled in; choice prompts get options a, b, c. */
export function aPrompt(input_type: Prompt['input_type'], overrides: Partial<Prompt> = {}): Prompt {
  const prompt: Prompt = {
    input_type,
    text: `A ${input_type} question`,
    timeout: null,
    error: DEFAULT_PROMPT_ERROR,
  };
  if (input_type === 'text') Object.assign(prompt, { placeholder: null, required: true });
  if (input_type === 'binary_choice') Object.assign(prompt, { options: options('y', 'n'), required: true });
  else if (['radio', 'checkbox', 'dropdown'].includes(input_type))
    Object.assign(prompt, { options: options('a', 'b', 'c'), required: true });
  return { ...prompt, ...overrides };
}

export function anOpenInteraction(prompt: Prompt = aPrompt('text')): InteractionRecord {
  return { prompt, status: 'open', deadline: null };
}

/**
 * The execution side of an `ask`, as the engine's sink hands it over: records the waits in `store`,
 * keeps what it publishes, and says when the prompt went out.
 */
export class AskingExecution {
  readonly events: ExecutionEventBody[] = [];
  private asked!: () => void;
  /** Resolves once `interaction_required` is published (the interaction is open in the store by then). */
  readonly prompted = new Promise<void>((resolve) => (this.asked = resolve));

  constructor(
    readonly id: string,
    private readonly store: ExecutionStore,
  ) {}

  record = (wait: InteractionWait): Promise<WaitOutcome> => this.store.apply(this.id, wait);

  publish = (event: ExecutionEventBody): void => {
    this.events.push(event);
    if (event.kind === 'interaction_required') this.asked();
  };
}

/**
 * The engine without Nest: the real ExecutionService and InteractionService over memory adapters (trace
 * owners in an in-memory SQLite), as `yaml` configures them, with no durable waits (one process); the
 * broker can be swapped, e.g. for one that holds answers back. The listeners of its lifecycle events
 * that Nest would subscribe are wired to its bus (`counts`: what /metrics would show).
 */
export async function anEngine(
  yaml = 'workflow: { _type: echo }',
  broker: InteractionBroker = new InProcessInteractionBroker(),
) {
  const config = new ServerConfig(parseConfig(yaml, 'test.yml', builtinRegistry()));
  const store = new MemoryExecutionStore();
  const interactions = new InteractionService(broker);
  const instances = new WorkflowInstances(config);
  const oauth = new OAuthService(
    config,
    new MemoryPendingOAuthFlows(),
    new MemoryOAuthTokens(),
    new MemoryOAuthWakeups(),
  );
  const bus = new EventEmitter2();
  const counts = new ExecutionCounts();
  const spans = new ExecutionSpanEnds();
  bus.on(ExecutionStarted.event, () => counts.countStarted());
  bus.on(ExecutionFinished.event, (event: ExecutionFinished) => {
    counts.countFinished(event);
    spans.finished(event);
    instances.runEnded(event);
    oauth.executionFinished(event);
  });
  const running = new RunningExecutions();
  const runner = new ExecutionRunner(running, store, interactions, oauth, instances, config, bus, null);
  const executions = new ExecutionService(
    store,
    new MemoryEventLogs({ maxBytes: Number.POSITIVE_INFINITY }),
    interactions,
    instances,
    config,
    new TraceOwners(await Database.open('sqlite::memory:')),
    new LocalExecutionCancels(),
    bus,
    null,
    running,
    runner,
  );
  return { config, store, broker, interactions, executions, bus, counts };
}
