import type { IntermediateStep, IntermediateStepType } from './intermediate-step';

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

function show(value: unknown): string {
  if (value === undefined || value === null) return 'None';
  return escape(typeof value === 'string' ? value : JSON.stringify(value));
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
 * stream: an LLM_END is shown only after its LLM_START, and token chunks accumulate.
 */
export class StepAdaptor {
  private readonly starts = new Map<string, IntermediateStep>();
  private readonly chunks = new Map<string, string>();
  private readonly custom: Set<string>;

  constructor(
    private readonly mode: StepAdaptorMode,
    customTypes: string[] = [],
  ) {
    this.custom = new Set(customTypes.length ? customTypes : ['CUSTOM_START', 'CUSTOM_END']);
  }

  adapt(step: IntermediateStep): ResponseIntermediateStep | null {
    const { payload } = step;
    if (payload.event_type.endsWith('_START')) this.starts.set(payload.UUID, step);
    if (this.mode === 'off') return null;
    const cat = category(payload.event_type);
    if (this.mode === 'default' && cat !== 'LLM' && cat !== 'TOOL' && cat !== 'FUNCTION') return null;
    if (this.mode === 'custom' && !this.custom.has(payload.event_type)) return null;
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
    const input = show(start.payload.data?.input);
    let text = `**Input:**\n\`\`\`python\n${input}\n\`\`\``;
    if (payload.event_type === 'LLM_NEW_TOKEN') {
      const sofar = (this.chunks.get(payload.UUID) ?? '') + String(payload.data?.chunk ?? '');
      this.chunks.set(payload.UUID, sofar);
      text += `\n\n**Output:**\n${escape(sofar)}`;
    } else if (payload.event_type === 'LLM_END') {
      this.chunks.delete(payload.UUID);
      text += `\n\n**Output:**\n${show(payload.data?.output)}`;
    }
    return this.response(step, payload.name ?? '', text, step.function_ancestry.function_id);
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
