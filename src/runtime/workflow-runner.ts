import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ExecutionEventBody } from './execution-event';
import type { Identity } from '../core/identity/identity';
import { newTraceId, type ObservabilityTrace } from '../core/tracing/observability-trace';
import type { BuiltFunction } from './function-type';
import {
  endType,
  newStepId,
  nowSeconds,
  startType,
  type IntermediateStep,
  type IntermediateStepType,
  type StepKind,
  type StreamEventData,
  type UsageInfo,
} from './intermediate-step';
import { isExposed } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import { PromptConfig, promptProblems, toPrompt, type Prompt, type PromptAnswer } from './prompts';
import { RunJournal, type JournalPoint } from './run-journal';
import type {
  AuthResult,
  AuthenticateOptions,
  PromptOptions,
  PromptRequest,
  RequestMetadata,
  StepOptions,
  WorkflowContext,
} from './workflow-context';

/** Where the engine sends what a workflow does; the ExecutionService implements it. */
export interface ExecutionSink {
  publish(event: ExecutionEventBody): void;
  /**
   * Asks a person; the sink ends the wait when the run is cancelled. `points` (durable runs only): the
   * interaction's point and its answer's (journaled in the execution's record, not in journal rows).
   */
  prompt(prompt: Prompt, interactionId?: string, points?: PromptPoints): Promise<PromptAnswer>;
  /** `point` (durable runs only): where the grant is journaled (a marker, never the token). */
  authenticate(
    provider: string,
    signal: AbortSignal,
    point?: JournalPoint,
    options?: AuthenticateOptions,
  ): Promise<AuthResult>;
}

export interface PromptPoints {
  interaction: JournalPoint;
  answer: JournalPoint;
}

/** Wraps each `ctx.step` in a tracing span (OpenTelemetry, when it is on). */
export interface StepTracer {
  step<T>(name: string, kind: StepKind, fn: () => Promise<T>): Promise<T>;
}

export interface RunInit {
  executionId: string;
  /** Called when the workflow reads `ctx.executionId` (it may hand the id out, so it must be pollable). */
  onIdRead?: () => void;
  identity: Identity;
  request: RequestMetadata;
  /** The run's observability ids; a fresh trace id when left out. */
  trace?: ObservabilityTrace;
  steps?: StepTracer;
  /** The run's signal, or a function or holder (LazyAbort) that makes it when first needed. */
  signal: AbortSignal | (() => AbortSignal) | { readonly signal: AbortSignal };
  /** Whether the face streams output (default true). */
  streaming?: boolean;
  sink: ExecutionSink;
  /** The run's journal when it is durable (a replica can take it over); none in one process. */
  journal?: RunJournal;
}

interface Frame {
  id: string;
  name: string;
  parent: Frame | null;
}

const ROOT: Frame = Object.freeze({ id: 'root', name: 'root', parent: null });

/** The function call tree, so nested steps report their parent the way NAT's ancestry does. */
const frames = new AsyncLocalStorage<Frame>();

class Context implements WorkflowContext {
  private readonly id: string;
  private readonly onIdRead?: () => void;
  readonly identity: Identity;
  readonly request: RequestMetadata;
  readonly trace: ObservabilityTrace;
  readonly streaming: boolean;
  private readonly signalOf: RunInit['signal'];
  private readonly sink: ExecutionSink;
  private readonly steps?: StepTracer;
  /** Durable runs' journal; otherwise made on first use, only to number points (nothing is written). */
  private points?: RunJournal;
  private readonly durable: boolean;

  constructor(init: RunInit) {
    this.id = init.executionId;
    this.onIdRead = init.onIdRead;
    this.identity = init.identity;
    this.request = init.request;
    this.trace = init.trace ?? { traceId: newTraceId() };
    this.steps = init.steps;
    this.streaming = init.streaming ?? true;
    this.signalOf = init.signal;
    this.sink = init.sink;
    this.points = init.journal;
    this.durable = init.journal !== undefined;
  }

  get executionId(): string {
    this.onIdRead?.();
    return this.id;
  }

  private get journal(): RunJournal {
    return (this.points ??= new RunJournal([], async (entry) => entry.value));
  }

  journaled<T>(kind: string, fn: () => Promise<T> | T): Promise<T> {
    return this.journal.journaled(kind, fn);
  }

  now(): Promise<number> {
    return this.journaled('now', () => Date.now());
  }

  random(): Promise<number> {
    return this.journaled('random', () => Math.random());
  }

  uuid(): Promise<string> {
    return this.journaled('uuid', () => randomUUID());
  }

  idempotencyKey(label?: string): string {
    const point = this.journal.current ?? '0';
    return `${this.id}:${point}${label === undefined ? '' : `:${label}`}`;
  }

  get signal(): AbortSignal {
    const of = this.signalOf;
    if (typeof of === 'function') return of();
    return of instanceof AbortSignal ? of : of.signal;
  }

  async step<T>(
    name: string,
    kind: StepKind,
    fn: () => Promise<T> | T,
    options: StepOptions<T> = {},
  ): Promise<T> {
    const parent = frames.getStore() ?? ROOT;
    const frame: Frame = { id: newStepId(), name, parent };
    const started = nowSeconds();
    this.publishStep(startType(kind), name, frame, null, { input: options.input }, options);
    try {
      const result = await (this.steps
        ? this.steps.step(name, kind, () => frames.run(frame, async () => fn()))
        : frames.run(frame, fn));
      const { output, usage } = options.end ? options.end(result) : { output: result, usage: undefined };
      const data = { input: options.input, output };
      this.publishStep(endType(kind), name, frame, started, data, options, usage);
      return result;
    } catch (err) {
      // Steps are streamed to the caller: an internal error's detail is for the log (the ending logs it).
      const type = err instanceof Error ? err.name : 'Error';
      const output = isExposed(err) ? `${type}: ${(err as Error).message}` : `${type}: internal error`;
      this.publishStep(endType(kind), name, frame, started, { input: options.input, output }, options);
      throw err;
    }
  }

  event(
    type: IntermediateStepType,
    name: string,
    data: StreamEventData = {},
    options: StepOptions = {},
  ): void {
    const current = frames.getStore();
    const frame = current ?? { id: newStepId(), name, parent: ROOT };
    this.publishStep(type, name, frame, null, data, options);
  }

  emit(chunk: unknown): void {
    this.sink.publish({ kind: 'output', value: chunk });
  }

  // Not async, and no signal handed over: a waiting execution should cost as little memory as it can.
  prompt(request: PromptRequest, options?: PromptOptions): Promise<PromptAnswer> {
    try {
      const prompt = checkedPrompt(request);
      if (!this.durable) return this.sink.prompt(prompt, options?.interactionId);
      const points = {
        interaction: this.journal.reserved('interaction'),
        answer: this.journal.reserved('answer'),
      };
      return this.sink.prompt(prompt, options?.interactionId, points);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  authenticate(provider: string, options?: AuthenticateOptions): Promise<AuthResult> {
    const point = this.durable && options?.journal !== false ? this.journal.point('oauth') : undefined;
    return this.sink.authenticate(provider, this.signal, point, options);
  }

  private publishStep(
    type: IntermediateStepType,
    name: string,
    frame: Frame,
    spanStarted: number | null,
    data: StreamEventData,
    options: StepOptions<never>,
    usage?: UsageInfo,
  ): void {
    const parent = frame.parent ?? ROOT;
    const step: IntermediateStep = {
      parent_id: parent.id,
      function_ancestry: {
        function_id: parent.id,
        function_name: parent.name,
        parent_id: parent.parent?.id ?? null,
        parent_name: parent.parent?.name ?? null,
      },
      payload: {
        event_type: type,
        event_timestamp: nowSeconds(),
        span_event_timestamp: spanStarted,
        framework: null,
        name,
        tags: options.tags ?? null,
        metadata: options.metadata ?? null,
        data,
        usage_info: usage ?? null,
        UUID: frame.id,
      },
    };
    this.sink.publish({ kind: 'step', step });
  }
}

/** A workflow's prompt, validated like a config's: a malformed one is the workflow's bug, reported as such. */
export function checkedPrompt(request: PromptRequest): Prompt {
  const checked = validatePlain(PromptConfig, request, ['prompt']);
  const problems = checked.ok
    ? promptProblems(checked.value).map((p) => `prompt.${p.field}: ${p.message}`)
    : checked.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`);
  if (!checked.ok || problems.length > 0) throw new TypeError(`Invalid prompt: ${problems.join('; ')}`);
  return toPrompt(checked.value);
}

/** Runs a built function with a fresh context. Plain TypeScript: no face, no Nest type. */
export function runWorkflow(fn: BuiltFunction, input: unknown, init: RunInit): Promise<unknown> {
  const ctx = new Context(init);
  return fn.run(input, ctx);
}
