import { quoted } from './model-text';
import { PLACEHOLDER, textOf, type PlanStep } from './rewoo-plan';

/** Characters a text being built may still take: taking more throws what `exceeded` makes. */
export class CharBudget {
  constructor(
    private left: number,
    private readonly exceeded: () => Error,
  ) {}

  take(chars: number): void {
    this.left -= chars;
    if (this.left < 0) throw this.exceeded();
  }
}

/** The evidence gathered so far, each with the text that stands for it inside other text. */
export class Evidence {
  private readonly values = new Map<string, unknown>();
  private readonly texts = new Map<string, string>();

  set(placeholder: string, value: unknown): void {
    this.values.set(placeholder, value);
    this.texts.set(placeholder, textOf(value));
  }

  has(placeholder: string): boolean {
    return this.values.has(placeholder);
  }

  value(placeholder: string): unknown {
    return this.values.get(placeholder);
  }

  text(placeholder: string): string {
    return this.texts.get(placeholder) ?? '';
  }
}

/**
 * A planned tool input with the evidence so far in place of its placeholders: a string that is exactly
 * one placeholder becomes that evidence as it is (a list stays a list), one inside text its text. Each
 * character it would have is taken from `budget` before it is written, so a plan that names a long
 * evidence many times fails before it fills the memory.
 */
export function withEvidence(input: unknown, evidence: Evidence, budget: CharBudget): unknown {
  if (Array.isArray(input)) return input.map((v) => withEvidence(v, evidence, budget));
  if (input !== null && typeof input === 'object') {
    return Object.fromEntries(
      Object.entries(input).map(([k, v]) => {
        budget.take(k.length);
        return [k, withEvidence(v, evidence, budget)];
      }),
    );
  }
  if (typeof input !== 'string') {
    budget.take(String(input).length);
    return input;
  }
  if (evidence.has(input)) {
    budget.take(evidence.text(input).length);
    return structuredClone(evidence.value(input));
  }
  budget.take(input.length);
  return input.replace(PLACEHOLDER, (p) => {
    if (!evidence.has(p)) return p;
    const text = evidence.text(p);
    budget.take(text.length - p.length);
    return text;
  });
}

/** The plan with each step's input (as it ran) and result, as NAT's solver reads it. */
export function solverPlan(
  byPlaceholder: Map<string, PlanStep>,
  inputs: Map<string, unknown>,
  evidence: Evidence,
  budget: CharBudget,
): string {
  const parts: string[] = [];
  for (const [placeholder, step] of byPlaceholder) {
    const input = textOf(inputs.get(placeholder) ?? step.evidence.tool_input);
    const result = evidence.text(placeholder);
    const { plan } = step;
    // A tool of the plan's own naming is quoted in part, as in its evidence.
    const tool = quoted(step.evidence.tool);
    budget.take(plan.length + placeholder.length + tool.length + input.length + result.length + 25);
    // NAT's layout, its unclosed bracket included: solver prompts are written against it.
    parts.push(`Plan: ${plan}\n${placeholder} = ${tool}[${input}\nResult: ${result}\n\n`);
  }
  return parts.join('');
}
