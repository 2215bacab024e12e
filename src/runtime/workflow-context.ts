import type { Identity } from '../core/identity/identity';
import type { ObservabilityTrace } from '../core/tracing/observability-trace';
import type { IntermediateStepType, StepKind, StreamEventData, UsageInfo } from './intermediate-step';
import type { Prompt, PromptAnswer } from './prompts';
import type { RequestMetadata } from '../core/request-metadata';

export type { RequestMetadata };

/** A question as a workflow writes it; `timeout`, `error`, `required` get NAT's defaults. */
export type PromptRequest = Omit<Prompt, 'timeout' | 'error'> & { timeout?: number | null; error?: string };

export interface AuthResult {
  headers: { Authorization: string };
}

export interface AuthenticateOptions {
  /** The access token the API just refused (it answered 401): refreshed, or the user is asked again. */
  refused?: string;
  /**
   * false: not a journal point. For asks whose number depends on what this process holds (an MCP
   * session asks once, then reuses the token), which a replay on another replica cannot repeat in step.
   */
  journal?: boolean;
}

export interface StepOptions<T = unknown> {
  input?: unknown;
  metadata?: Record<string, unknown>;
  tags?: string[];
  /** What the END event reports of the result (default: the result as output, no usage). */
  end?: (result: T) => { output?: unknown; usage?: UsageInfo };
}

export interface PromptOptions {
  /** The interaction's id (default: a fresh one), for a workflow that names it to others (a tool result). */
  interactionId?: string;
}

/** The single surface a workflow function sees. No workflow knows which face is watching. */
export interface WorkflowContext {
  readonly executionId: string;
  readonly identity: Identity;
  readonly request: RequestMetadata;
  /**
   * The run's observability ids: the trace id the client gets back (`Observability-Trace-Id`) and NAT's
   * `conversation-id`, `user-message-id`, `workflow-run-id`, `workflow-parent-id`/`-name` headers.
   */
  readonly trace: ObservabilityTrace;
  /** Fires on cancel, on a streaming client's disconnect, and on shutdown. */
  readonly signal: AbortSignal;
  /**
   * Whether the face shows output as it is produced (false on non-streaming routes, where a workflow
   * may skip token streaming: only its result is shown).
   */
  readonly streaming: boolean;
  /** Runs `fn` inside a `<KIND>_START` / `<KIND>_END` pair; the END carries its result as output. */
  step<T>(name: string, kind: StepKind, fn: () => Promise<T> | T, options?: StepOptions<T>): Promise<T>;
  /**
   * A single intermediate event such as LLM_NEW_TOKEN or SPAN_CHUNK. Inside a step it carries that
   * step's UUID (as NAT's token events carry their LLM_START's), so faces can tie it to its step.
   */
  event(type: IntermediateStepType, name: string, data?: StreamEventData, options?: StepOptions): void;
  /** Streams one output item (a text chunk or a structured value). */
  emit(chunk: unknown): void;
  /**
   * Asks a human and resolves with the answer (`{type: "cancel"}` when they declined a prompt that
   * allows it). Rejects with PromptTimeoutError after the prompt's timeout plus a grace period.
   */
  prompt(prompt: PromptRequest, options?: PromptOptions): Promise<PromptAnswer>;
  /** Resolves with a bearer header for the named provider, asking the user to authorize if needed. */
  authenticate(provider: string, options?: AuthenticateOptions): Promise<AuthResult>;
  /**
   * Durable waits: `fn`'s result, journaled before the workflow sees it. When another replica takes the
   * execution over and replays the workflow, the journaled result is returned and `fn` does not run
   * again (model calls and `defineTool` tools already go through here). The result must be JSON.
   */
  journaled<T>(kind: string, fn: () => Promise<T> | T): Promise<T>;
  /** The time (epoch ms), journaled: a replay sees the time the first run saw. Use it, not `Date.now()`. */
  now(): Promise<number>;
  /** A random number in [0, 1), journaled. Use it, not `Math.random()`. */
  random(): Promise<number>;
  /** A random UUID, journaled. */
  uuid(): Promise<string>;
  /**
   * A key that names the current piece of work (the tool call running now, plus `label`) and stays the
   * same when a replay runs it again: work between journal points runs at least once, so a tool that
   * changes the world can pass it on (an `Idempotency-Key` header) to have the repeat ignored.
   */
  idempotencyKey(label?: string): string;
}

/** A built, runnable workflow (or tool) function. */
export type WorkflowFn = (input: unknown, ctx: WorkflowContext) => Promise<unknown>;
