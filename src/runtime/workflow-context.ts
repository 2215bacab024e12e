import type { Identity } from '../core/identity/identity';
import type { IntermediateStepType, StepKind, StreamEventData } from './intermediate-step';

/** What the workflow may know of the request that started it. */
export interface RequestMetadata {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  cookies: Record<string, string>;
}

/** A question for a human; its `input_type` selects the shape (the interactions issue refines these). */
export interface HumanPrompt {
  input_type: string;
  text: string;
  [field: string]: unknown;
}

export interface HumanResponse {
  type: string;
  [field: string]: unknown;
}

export interface AuthResult {
  headers: { Authorization: string };
}

export interface StepOptions {
  input?: unknown;
  metadata?: Record<string, unknown>;
  tags?: string[];
}

/** The single surface a workflow function sees. No workflow knows which face is watching. */
export interface WorkflowContext {
  readonly executionId: string;
  readonly identity: Identity;
  readonly request: RequestMetadata;
  /** Fires on cancel, on a streaming client's disconnect, and on shutdown. */
  readonly signal: AbortSignal;
  /** Runs `fn` inside a `<KIND>_START` / `<KIND>_END` pair; the END carries its result as output. */
  step<T>(name: string, kind: StepKind, fn: () => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** A single intermediate event such as LLM_NEW_TOKEN or SPAN_CHUNK, inside the current step. */
  event(type: IntermediateStepType, name: string, data?: StreamEventData, options?: StepOptions): void;
  /** Streams one output item (a text chunk or a structured value). */
  emit(chunk: unknown): void;
  /** Asks a human; resolves with the typed response. */
  prompt(prompt: HumanPrompt): Promise<HumanResponse>;
  /** Resolves with a bearer header for the named provider, asking the user to authorize if needed. */
  authenticate(provider: string): Promise<AuthResult>;
}

/** A built, runnable workflow (or tool) function. */
export type WorkflowFn = (input: unknown, ctx: WorkflowContext) => Promise<unknown>;
