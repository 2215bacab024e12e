import { AppError, ErrorCode } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import type { InteractionService } from '../interactions/interaction.service';
import type { InteractionWait } from '../interactions/interaction-record';
import type { OAuthService } from '../oauth/oauth.service';
import type { OAuthFlowWait } from '../oauth/oauth-wait';
import type { ExecutionEventBody } from '../runtime/execution-event';
import type { LazyAbort } from '../runtime/lazy-abort';
import type { Prompt, PromptAnswer } from '../runtime/prompts';
import type { JournalPoint, RunJournal } from '../runtime/run-journal';
import type { ExecutionSink } from '../runtime/workflow-runner';
import type { InteractionRecord } from '../interactions/interaction-record';
import { durablePrompt } from './durable-prompt';
import type { EventLog } from './event-log';
import type { TransitionOutcome } from './execution-state';

/** What a running execution keeps of the route that started it. */
export interface RouteFacts {
  interactive: boolean;
  interactiveRoute?: string;
  path: string;
  identity: Identity;
}

/** What the sink needs of a running execution. */
export interface WaitingEntry {
  execution: { readonly id: string; readonly events: EventLog };
  abort: LazyAbort;
  /** Prompts the workflow is waiting on right now. */
  waiting: number;
  /** Whether the workflow emitted output items (faces then need not stream the result). */
  streamed: boolean;
  /** A durable run's journal; while it replays, the events it publishes are in the log already. */
  journal?: RunJournal;
  /** Set when the run was handed to another replica: it must record and publish nothing more. */
  handedOver?: boolean;
}

/** Where prompts and authorizations go; `record` is the engine's (only) writer of the waits. */
export interface WaitDeps {
  interactions: InteractionService;
  oauth: OAuthService;
  defaultPromptTimeout: number;
  record(executionId: string, wait: InteractionWait | OAuthFlowWait): Promise<TransitionOutcome>;
  /** An interaction as the shared record holds it now (durable runs resuming a wait). */
  read(executionId: string, interactionId: string): Promise<InteractionRecord | undefined>;
}

/** Where the workflow's events, prompts and authorizations go. */
export function sinkFor(entry: WaitingEntry, deps: WaitDeps, options: RouteFacts): ExecutionSink {
  const publish = (event: ExecutionEventBody) => {
    if (event.kind === 'output') entry.streamed = true;
    if (entry.journal && (entry.journal.replaying || entry.handedOver)) return;
    entry.execution.events.append(event);
  };
  if (entry.journal) deps = durableDeps(entry, deps);
  return {
    publish,
    prompt: (p, interactionId, points) =>
      points
        ? durablePrompt(entry, p, interactionId, points, publish, options, deps, prompt)
        : prompt(entry, p, interactionId, publish, options, deps),
    authenticate: (provider, _signal, point) => authenticate(entry, provider, publish, options, deps, point),
  };
}

/** A durable run records nothing once it was handed over: the replica that has it now does. */
function durableDeps(entry: WaitingEntry, deps: WaitDeps): WaitDeps {
  return {
    ...deps,
    record: async (id, wait) => (entry.handedOver ? 'not_found' : deps.record(id, wait)),
  };
}

export type AskPerson = (
  entry: WaitingEntry,
  prompt: Prompt,
  interactionId: string | undefined,
  publish: (event: ExecutionEventBody) => void,
  options: RouteFacts,
  deps: WaitDeps,
) => Promise<PromptAnswer>;

async function authenticate(
  entry: WaitingEntry,
  provider: string,
  publish: (event: ExecutionEventBody) => void,
  options: RouteFacts,
  deps: WaitDeps,
  point?: JournalPoint,
) {
  if (!options.interactive) throw notInteractive('authorize with OAuth (ctx.authenticate)', options);
  entry.waiting++;
  try {
    const id = entry.execution.id;
    const record = (wait: OAuthFlowWait) => deps.record(id, wait);
    const execution = { id, identity: options.identity, publish, record };
    // A replay asks again: the token is held by then (or the pending flow is waited on again).
    const granted = await deps.oauth.authenticate(execution, provider, entry.abort);
    // Journaled as a marker, never the token itself.
    if (point && !point.recorded) await point.record({ granted: provider });
    return granted;
  } finally {
    entry.waiting--;
  }
}

// Not an async function: a waiting execution would hold its suspended frame (a few hundred bytes).
function prompt(
  entry: WaitingEntry,
  prompt: Prompt,
  interactionId: string | undefined,
  publish: (event: ExecutionEventBody) => void,
  options: RouteFacts,
  deps: WaitDeps,
): Promise<PromptAnswer> {
  if (!options.interactive && prompt.input_type !== 'notification') {
    return Promise.reject(notInteractive('ask a person (ctx.prompt)', options));
  }
  const id = entry.execution.id;
  const record = (wait: InteractionWait) => deps.record(id, wait);
  const execution = { id, publish, record };
  const waitSeconds = prompt.timeout ?? deps.defaultPromptTimeout;
  entry.waiting++;
  return deps.interactions
    .ask(execution, prompt, entry.abort, interactionId, waitSeconds)
    .finally(() => entry.waiting--);
}

function notInteractive(what: string, options: RouteFacts): AppError {
  const instead = options.interactiveRoute
    ? ` Use the interactive route ${options.interactiveRoute} instead.`
    : '';
  return new AppError(
    ErrorCode.NotInteractive,
    `This workflow tried to ${what}, but ${options.path} is not an interactive route.${instead}`,
    { errorType: 'NotInteractiveError' },
  );
}
