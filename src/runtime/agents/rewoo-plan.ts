import { quoted } from './model-text';
import { pythonRepr } from './python-format';

/** One step of a ReWOO plan: what it is for, and the tool call whose output is its evidence. */
export interface PlanStep {
  plan: string;
  evidence: { placeholder: string; tool: string; tool_input: unknown };
}

export const PLACEHOLDER = /#E\d+/g;

/** Lists and objects a tool input may nest (the tools, the steps' JSON and Python's repr are walked). */
export const MAX_INPUT_DEPTH = 64;

/** A run passed one of the ReWOO agent's limits. */
export class ReWOOLimitExceeded extends Error {
  /** Names the agent's settings and counts, and quotes the model only in part (see isExposed). */
  readonly expose = true;

  constructor(agent: string, problem: string) {
    super(`ReWOO agent "${agent}": ${problem}`);
    this.name = 'ReWOOLimitExceeded';
  }
}

/** Whether a value nests lists or objects more than `max` deep (walked without recursion). */
export function nestsDeeper(value: unknown, max = MAX_INPUT_DEPTH): boolean {
  const todo: [unknown, number][] = [[value, 0]];
  while (todo.length) {
    const [item, depth] = todo.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) todo.push([child, depth + 1]);
  }
  return false;
}

/**
 * The planner's answer as steps; anything but a JSON array of steps is refused, quoting its start, and
 * so is a plan of more than `maxSteps` steps or with an input nested more than MAX_INPUT_DEPTH deep.
 */
export function parsePlan(text: string, agent: string, maxSteps: number): PlanStep[] {
  const invalid = () => new Error(`The output of planner is invalid JSON format: ${quoted(text, 1000)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed)) throw invalid();
  if (parsed.length > maxSteps)
    throw new ReWOOLimitExceeded(
      agent,
      `the plan has ${parsed.length} steps, over max_plan_steps (${maxSteps})`,
    );
  for (const step of parsed as Record<string, unknown>[]) {
    const evidence = step?.evidence as Record<string, unknown> | undefined;
    if (
      typeof step?.plan !== 'string' ||
      typeof evidence?.placeholder !== 'string' ||
      typeof evidence.tool !== 'string' ||
      !('tool_input' in evidence)
    )
      throw invalid();
    if (nestsDeeper(evidence.tool_input))
      throw new ReWOOLimitExceeded(
        agent,
        `the input of step ${quoted(evidence.placeholder)} nests lists and objects more than ${MAX_INPUT_DEPTH} deep`,
      );
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
