import { randomUUID } from 'node:crypto';

/** NeMo Agent Toolkit's IntermediateStepType values. */
export type IntermediateStepType =
  | 'LLM_START'
  | 'LLM_END'
  | 'LLM_NEW_TOKEN'
  | 'TOOL_START'
  | 'TOOL_END'
  | 'WORKFLOW_START'
  | 'WORKFLOW_END'
  | 'TASK_START'
  | 'TASK_END'
  | 'FUNCTION_START'
  | 'FUNCTION_END'
  | 'CUSTOM_START'
  | 'CUSTOM_END'
  | 'SPAN_START'
  | 'SPAN_CHUNK'
  | 'SPAN_END';

export const INTERMEDIATE_STEP_TYPES: readonly IntermediateStepType[] = [
  'LLM_START',
  'LLM_END',
  'LLM_NEW_TOKEN',
  'TOOL_START',
  'TOOL_END',
  'WORKFLOW_START',
  'WORKFLOW_END',
  'TASK_START',
  'TASK_END',
  'FUNCTION_START',
  'FUNCTION_END',
  'CUSTOM_START',
  'CUSTOM_END',
  'SPAN_START',
  'SPAN_CHUNK',
  'SPAN_END',
];

/** The kinds a `ctx.step()` pair can have; each maps to a `<KIND>_START` / `<KIND>_END` pair. */
export type StepKind = 'llm' | 'tool' | 'workflow' | 'task' | 'function' | 'custom' | 'span';

export interface UsageInfo {
  token_usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  num_llm_calls: number;
  seconds_between_calls: number;
}

export interface StreamEventData {
  input?: unknown;
  output?: unknown;
  chunk?: unknown;
}

/** NAT's IntermediateStepPayload, field for field (serialised as-is on /full). */
export interface IntermediateStepPayload {
  event_type: IntermediateStepType;
  event_timestamp: number;
  span_event_timestamp: number | null;
  framework: string | null;
  name: string | null;
  tags: string[] | null;
  metadata: Record<string, unknown> | null;
  data: StreamEventData | null;
  usage_info: UsageInfo | null;
  UUID: string;
}

export interface InvocationNode {
  function_id: string;
  function_name: string;
  parent_id: string | null;
  parent_name: string | null;
}

/** NAT's IntermediateStep: the payload plus where in the call tree it happened. */
export interface IntermediateStep {
  parent_id: string;
  function_ancestry: InvocationNode;
  payload: IntermediateStepPayload;
}

export function startType(kind: StepKind): IntermediateStepType {
  return `${kind.toUpperCase()}_START` as IntermediateStepType;
}

export function endType(kind: StepKind): IntermediateStepType {
  return `${kind.toUpperCase()}_END` as IntermediateStepType;
}

export function newStepId(): string {
  return randomUUID();
}

/** Seconds since the epoch with sub-millisecond precision, as NAT's timestamps are. */
export function nowSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}
