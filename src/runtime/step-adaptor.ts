import type { IntermediateStep, IntermediateStepType } from './intermediate-step';
import { inputPreview, StreamedOutput } from './streamed-output';

export const STEP_ADAPTOR_MODES = ['default', 'custom', 'off'] as const;
export type StepAdaptorMode = (typeof STEP_ADAPTOR_MODES)[number];

/** NAT's ResponseIntermediateStep: what `intermediate_data:` lines carry. */
export interface ResponseIntermediateStep {
  id: string;
  parent_id: string | null;
  type: string;
  name: string;
  payload: string;
}

type Category = 'LLM' | 'TOOL' | 'FUNCTION' | 'CUSTOM' | 'OTHER';

function category(type: IntermediateStepType): Category {
  const prefix = type.slice(0, type.indexOf('_'));
  return prefix === 'LLM' || prefix === 'TOOL' || prefix === 'FUNCTION' || prefix === 'CUSTOM'
    ? prefix
    : 'OTHER';
}

/** NAT escapes only &, < and > (html.escape with quote=False). */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function raw(value: unknown): string {
  if (value === undefined || value === null) return 'None';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function show(value: unknown): string {
  return escape(raw(value));
}

/** NAT labels a block `json` when it parses as JSON once single quotes become double quotes. */
function fence(text: string): string {
  try {
    JSON.parse(text.replace(/'/g, '"'));
    return 'json';
  } catch {
    return 'python';
  }
}

function block(text: string): string {
  return `\`\`\`${fence(text)}\n${text}\n\`\`\``;
}

/**
 * Turns raw intermediate steps into the markdown steps NAT's `/stream` routes send. Stateful per
 * stream: an LLM_END is shown only after its LLM_START, and token chunks accumulate. Unlike NAT, a
 * streaming call is shown again at most every TOKEN_UPDATE_INTERVAL_MS (within a budget linear in
 * the output), with a preview of its input: see streamed-output.ts.
 */
export class StepAdaptor {
  private readonly starts = new Map<string, IntermediateStep>();
  private readonly outputs = new Map<string, StreamedOutput>();
  private readonly custom: Set<string>;

  constructor(
    private readonly mode: StepAdaptorMode,
    customTypes: string[] = [],
    /** Milliseconds, for spacing token updates. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.custom = new Set(customTypes.length ? customTypes : ['CUSTOM_START', 'CUSTOM_END']);
  }

  adapt(step: IntermediateStep): ResponseIntermediateStep | null {
    const { payload } = step;
    if (payload.event_type.endsWith('_START')) this.starts.set(payload.UUID, step);
    try {
      return this.shown(step);
    } finally {
      // Nothing of a step is looked up after its END.
      if (payload.event_type.endsWith('_END')) {
        this.starts.delete(payload.UUID);
        this.outputs.delete(payload.UUID);
      }
    }
  }

  private shown(step: IntermediateStep): ResponseIntermediateStep | null {
    const type = step.payload.event_type;
    if (this.mode === 'off') return null;
    const cat = category(type);
    if (this.mode === 'default' && cat !== 'LLM' && cat !== 'TOOL' && cat !== 'FUNCTION') return null;
    if (this.mode === 'custom' && !this.custom.has(type)) {
      // LLM_END shows the whole output; where it is not shown, the tokens held back are.
      if (type === 'LLM_END' && this.custom.has('LLM_NEW_TOKEN')) return this.heldTokens(step);
      return null;
    }
    switch (cat) {
      case 'LLM':
        return this.llm(step);
      case 'TOOL':
        return this.tool(step);
      case 'FUNCTION':
        return this.fn(step);
      case 'CUSTOM':
        return this.customStep(step);
      default:
        return null;
    }
  }

  private llm(step: IntermediateStep): ResponseIntermediateStep | null {
    const { payload } = step;
    const start = this.starts.get(payload.UUID);
    if (!start) return null;
    if (payload.event_type === 'LLM_NEW_TOKEN') return this.token(step, start);
    let text = `**Input:**\n\`\`\`python\n${show(start.payload.data?.input)}\n\`\`\``;
    if (payload.event_type === 'LLM_END') text += `\n\n**Output:**\n${show(payload.data?.output)}`;
    return this.response(step, payload.name ?? '', text, step.function_ancestry.function_id);
  }

  /** The output so far, when an update is due (the model's pace and the budget decide). */
  private token(step: IntermediateStep, start: IntermediateStep): ResponseIntermediateStep | null {
    const { UUID } = step.payload;
    let output = this.outputs.get(UUID);
    if (!output) {
      output = new StreamedOutput(escape(inputPreview(raw(start.payload.data?.input))));
      this.outputs.set(UUID, output);
    }
    if (!output.add(String(step.payload.data?.chunk ?? ''), this.now())) return null;
    return this.tokenUpdate(step, output);
  }

  private heldTokens(end: IntermediateStep): ResponseIntermediateStep | null {
    const output = this.outputs.get(end.payload.UUID);
    return output?.held ? this.tokenUpdate(end, output) : null;
  }

  private tokenUpdate(step: IntermediateStep, output: StreamedOutput): ResponseIntermediateStep {
    const text = `**Input:**\n\`\`\`python\n${output.input}\n\`\`\`\n\n**Output:**\n${escape(output.text)}`;
    return this.response(step, step.payload.name ?? '', text, step.function_ancestry.function_id);
  }

  private tool(step: IntermediateStep): ResponseIntermediateStep {
    const { payload } = step;
    const input = show((this.starts.get(payload.UUID) ?? step).payload.data?.input);
    let text = `**Input:**\n${block(input)}`;
    if (payload.event_type === 'TOOL_END') text += `\n\n**Output:**\n${block(show(payload.data?.output))}`;
    return this.response(step, `Tool: ${payload.name ?? ''}`, text, step.function_ancestry.function_id);
  }

  private fn(step: IntermediateStep): ResponseIntermediateStep {
    const { payload } = step;
    const input = show((this.starts.get(payload.UUID) ?? step).payload.data?.input);
    const inputBlock = `**Function Input:**\n${block(input)}`;
    const parent = step.function_ancestry.parent_id;
    if (payload.event_type === 'FUNCTION_START') {
      return this.response(step, `Function Start: ${payload.name ?? ''}`, inputBlock, parent);
    }
    const text = `${inputBlock}**Function Output:**\n${block(show(payload.data?.output))}`;
    return this.response(step, `Function Complete: ${payload.name ?? ''}`, text, parent);
  }

  private customStep(step: IntermediateStep): ResponseIntermediateStep {
    const text = JSON.stringify(step.payload).replace(/\n/g, '');
    return this.response(
      step,
      step.payload.event_type,
      `\`\`\`${fence(text)}\n${escape(text)}\n\`\`\``,
      step.parent_id,
    );
  }

  private response(step: IntermediateStep, name: string, payload: string, parentId: string | null) {
    return { id: step.payload.UUID, parent_id: parentId, type: 'markdown', name, payload };
  }
}

/** The raw form `/full` sends: the step's own type and its payload as a JSON string. */
export function rawStep(step: IntermediateStep): ResponseIntermediateStep {
  const { payload } = step;
  return {
    id: payload.UUID,
    parent_id: step.parent_id,
    type: payload.event_type,
    name: payload.name ?? '',
    payload: JSON.stringify(payload),
  };
}
