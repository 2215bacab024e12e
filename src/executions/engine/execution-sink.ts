import { AppError, ErrorCode } from '../../core/errors/app-error';
import type { Identity } from '../../core/identity/identity';
import type { AskingExecution, InteractionService } from '../../interactions/interaction.service';
import type { InteractionWait } from '../../interactions/interaction-record';
import type { OAuthService } from '../../oauth/oauth.service';
import type { OAuthFlowWait } from '../../oauth/oauth-wait';
import type { ExecutionEventBody } from '../../runtime/execution-event';
import type { LazyAbort } from '../../runtime/lazy-abort';
import type { Prompt, PromptAnswer } from '../../runtime/prompts';
import type { JournalPoint, RunJournal } from '../../runtime/run-journal';
import type { ExecutionSink, PromptPoints } from '../../runtime/workflow-runner';
import type { AuthenticateOptions, AuthResult } from '../../runtime/workflow-context';
import type { InteractionRecord } from '../../interactions/interaction-record';
import { durablePrompt, type PromptingRun } from '../durability/durable-prompt';
import type { EventLog } from '../event-log/event-log';
import type { TransitionOutcome } from '../model/execution-state';
import type { LoggedTail } from '../event-log/logged-tail';
import type { PersonWaits } from '../model/execution';

/** What a running execution keeps of the route that started it. */
export interface RouteFacts {
  interactive: boolean;
  interactiveRoute?: string;
  path: string;
  identity: Identity;
  /** The workflow's type, named where a person is asked to authorize it. */
  workflow?: string;
  personWaits?: PersonWaits;
}

/** What the sink keeps of the route that started a run (from its start options or its run spec). */
export function routeOf(
  route: {
    interactive: boolean;
    interactiveRoute?: string;
    request: { path: string };
    personWaits?: PersonWaits;
  },
  identity: Identity,
  workflow?: string,
): RouteFacts {
  return {
    interactive: route.interactive,
    interactiveRoute: route.interactiveRoute,
    path: route.request.path,
    identity,
    workflow,
    personWaits: route.personWaits,
  };
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
  /** A run taken over: what its log holds after its last journal point (published before, not again). */
  logged?: LoggedTail;
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
  return new EntrySink(entry, deps, options);
}

/**
 * The sink of one run, and the execution its prompts belong to. Methods on the prototype, and the
 * prompt's wait counted here rather than in a `.finally`: a waiting execution holds no closures for them.
 */
export class EntrySink implements ExecutionSink, AskingExecution, PromptingRun {
  constructor(
    readonly entry: WaitingEntry,
    readonly deps: WaitDeps,
    readonly options: RouteFacts,
  ) {}

  get id(): string {
    return this.entry.execution.id;
  }

  get interactive(): boolean {
    return this.options.interactive;
  }

  publish(event: ExecutionEventBody): void {
    const { entry } = this;
    if (event.kind === 'output') entry.streamed = true;
    if (entry.journal && (entry.journal.replaying || entry.handedOver)) return;
    const logged = entry.logged;
    if (logged) {
      const repeated = logged.repeats(event);
      if (logged.exhausted) entry.logged = undefined;
      if (repeated) return;
    }
    entry.execution.events.append(event);
  }

  /** The engine's record of a wait; a durable run records nothing once it was handed over. */
  record(wait: InteractionWait | OAuthFlowWait): Promise<TransitionOutcome> {
    if (this.entry.handedOver) return Promise.resolve('not_found');
    return this.deps.record(this.entry.execution.id, wait);
  }

  waitStarted(): void {
    this.entry.waiting++;
  }

  waitEnded(): void {
    this.entry.waiting--;
  }

  prompt(prompt: Prompt, interactionId?: string, points?: PromptPoints): Promise<PromptAnswer> {
    const answer = points
      ? durablePrompt(this, prompt, interactionId, points)
      : this.ask(prompt, interactionId);
    const waits = this.options.personWaits;
    if (!waits || !this.options.interactive || prompt.input_type === 'notification') return answer;
    return heldDuring(answer, waits);
  }

  /** Asks a person. Not an async function: a waiting execution would hold its suspended frame. */
  ask(prompt: Prompt, interactionId: string | undefined, point?: string): Promise<PromptAnswer> {
    const { options, deps, entry } = this;
    if (!options.interactive && prompt.input_type !== 'notification') {
      return Promise.reject(notInteractive('ask a person (ctx.prompt)', options));
    }
    const waitSeconds = prompt.timeout ?? deps.defaultPromptTimeout;
    // The seq now: the interaction is recorded before its `interaction_required` is published.
    const at = point === undefined ? undefined : { point, seq: entry.execution.events.appendedSeq };
    return deps.interactions.ask(this, prompt, entry.abort, interactionId, waitSeconds, at);
  }

  /** The interaction as the shared record holds it now (a durable run resuming its wait). */
  recorded(interactionId: string): Promise<InteractionRecord | undefined> {
    return this.deps.read(this.entry.execution.id, interactionId);
  }

  askAgain(prompt: Prompt, interactionId: string): Promise<PromptAnswer> {
    const read = async () => {
      const interaction = await this.recorded(interactionId);
      // The replica that opened it may have stopped after recording the wait and before publishing
      // it (a client following the log would wait for ever): published again, and for a closed one its
      // `interaction_resolved` (in `resume`), unless the log holds them already (the run's logged tail,
      // in `publish`).
      if (interaction) this.publish({ kind: 'interaction_required', interactionId, prompt });
      return interaction;
    };
    return this.deps.interactions.resume(this, interactionId, read, this.entry.abort);
  }

  authenticate(
    provider: string,
    _signal: AbortSignal,
    point?: JournalPoint,
    options?: AuthenticateOptions,
  ): Promise<AuthResult> {
    return authenticate(this, provider, point, options);
  }
}

async function authenticate(
  sink: EntrySink,
  provider: string,
  point?: JournalPoint,
  asked?: AuthenticateOptions,
): Promise<AuthResult> {
  const { entry, options, deps } = sink;
  if (!options.interactive) throw notInteractive('authorize with OAuth (ctx.authenticate)', options);
  entry.waiting++;
  // Only a consent a person must give is a wait: a token already held is not.
  const waits = options.personWaits;
  let waited = false;
  try {
    const id = entry.execution.id;
    const record = (wait: OAuthFlowWait) => sink.record(wait);
    const publish = (event: ExecutionEventBody) => {
      if (event.kind === 'oauth_required' && waits && !waited) {
        waited = true;
        waits.paused();
      }
      sink.publish(event);
    };
    const execution = { id, identity: options.identity, workflow: options.workflow, publish, record };
    // A replay asks again: the token is held by then (or the pending flow is waited on again).
    const granted = await deps.oauth.authenticate(execution, provider, entry.abort, asked);
    // Journaled as a marker, never the token itself.
    if (point && !point.recorded) await point.record({ granted: provider });
    return granted;
  } finally {
    entry.waiting--;
    if (waited) await waits!.resumed();
  }
}

/** The wait for a person's answer, the run's hold given back meanwhile and taken again after it. */
function heldDuring<T>(wait: Promise<T>, waits: PersonWaits): Promise<T> {
  waits.paused();
  return wait.then(
    (value) => waits.resumed().then(() => value),
    (err: unknown) =>
      waits.resumed().then(() => {
        throw err;
      }),
  );
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
