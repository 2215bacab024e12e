import { pythonRepr } from './python-format';

/** One step of a ReWOO plan: what it is for, and the tool call whose output is its evidence. */
export interface PlanStep {
  plan: string;
  evidence: { placeholder: string; tool: string; tool_input: unknown };
}

const PLACEHOLDER = /#E\d+/g;

/** The planner's answer as steps; anything but a JSON array of steps is refused, quoting it. */
export function parsePlan(text: string): PlanStep[] {
  const invalid = () => new Error(`The output of planner is invalid JSON format: ${text}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed)) throw invalid();
  for (const step of parsed as Record<string, unknown>[]) {
    const evidence = step?.evidence as Record<string, unknown> | undefined;
    if (
      typeof step?.plan !== 'string' ||
      typeof evidence?.placeholder !== 'string' ||
      typeof evidence.tool !== 'string' ||
      !('tool_input' in evidence)
    )
      throw invalid();
  }
  return parsed as PlanStep[];
}

/**
 * The steps by placeholder, and the order to run them in: levels of placeholders whose inputs name only
 * placeholders of earlier levels (a level's steps run at once). A cycle is refused.
 */
export function planLevels(steps: PlanStep[]): { byPlaceholder: Map<string, PlanStep>; levels: string[][] } {
  const byPlaceholder = new Map<string, PlanStep>();
  for (const step of steps) if (step.evidence.placeholder) byPlaceholder.set(step.evidence.placeholder, step);
  const remaining = new Map<string, Set<string>>();
  for (const [placeholder, step] of byPlaceholder) {
    const named = textOf(step.evidence.tool_input).match(PLACEHOLDER) ?? [];
    remaining.set(placeholder, new Set(named.filter((n) => byPlaceholder.has(n) && n !== placeholder)));
  }
  const levels: string[][] = [];
  while (remaining.size) {
    const ready = [...remaining].filter(([, deps]) => deps.size === 0).map(([p]) => p);
    if (!ready.length) throw new Error('Circular dependency detected in planner output');
    levels.push(ready);
    for (const p of ready) remaining.delete(p);
    for (const deps of remaining.values()) for (const p of ready) deps.delete(p);
  }
  return { byPlaceholder, levels };
}

/** A value as Python's `str()` shows it (text as it is, the rest as its repr). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/**
 * A planned tool input with the evidence so far in place of its placeholders: a string that is exactly
 * one placeholder becomes that evidence as it is (a list stays a list), one inside text its text.
 */
export function withEvidence(input: unknown, evidence: Map<string, unknown>): unknown {
  if (Array.isArray(input)) return input.map((v) => withEvidence(v, evidence));
  if (input !== null && typeof input === 'object')
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, withEvidence(v, evidence)]));
  if (typeof input !== 'string') return input;
  if (evidence.has(input)) return structuredClone(evidence.get(input));
  return input.replace(PLACEHOLDER, (p) => (evidence.has(p) ? textOf(evidence.get(p)) : p));
}

/** NAT's reading of a planned tool input given as text: JSON (single quotes tolerated), else the text. */
export function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const trimmed = input.trim();
  for (const candidate of [trimmed, trimmed.replace(/'/g, '"')]) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // not JSON: try the next reading
    }
  }
  return trimmed;
}

/** The plan with each step's input and result, as NAT's solver reads it. */
export function solverPlan(byPlaceholder: Map<string, PlanStep>, evidence: Map<string, unknown>): string {
  let plan = '';
  for (const [placeholder, step] of byPlaceholder) {
    const input = textOf(withEvidence(step.evidence.tool_input, evidence));
    const result = evidence.has(placeholder) ? textOf(evidence.get(placeholder)) : '';
    // NAT's layout, its unclosed bracket included: solver prompts are written against it.
    plan += `Plan: ${step.plan}\n${placeholder} = ${step.evidence.tool}[${input}\nResult: ${result}\n\n`;
  }
  return plan;
}
