import type { ContainsConfig, ExactMatchConfig } from '../../../config/eval.schema';
import { clip, textOf, type EvalInputItem, type EvalOutputItem, type Evaluator } from './evaluator';

function normalized(text: string, whitespace: boolean, caseSensitive: boolean): string {
  const spaced = whitespace ? text.trim().split(/\s+/).join(' ') : text;
  return caseSensitive ? spaced : spaced.toLowerCase();
}

/** `exact_match`: 1 when the answer equals the expected answer, else 0. */
export function exactMatchEvaluator(name: string, config: ExactMatchConfig): Evaluator {
  return {
    name,
    type: 'exact_match',
    evaluate(item: EvalInputItem): Promise<EvalOutputItem> {
      const expected = textOf(item.expected_output_obj);
      const output = textOf(item.output_obj);
      const same =
        normalized(expected, config.normalize_whitespace, config.case_sensitive) ===
        normalized(output, config.normalize_whitespace, config.case_sensitive);
      const reasoning = same
        ? 'the answer equals the expected answer'
        : `expected "${clip(expected)}", got "${clip(output)}"`;
      return Promise.resolve({ id: item.id, score: same ? 1 : 0, reasoning });
    },
  };
}

/**
 * `contains`: the share of expected texts found in the answer (one expected answer: 1 or 0; a list:
 * each counts).
 */
export function containsEvaluator(name: string, config: ContainsConfig): Evaluator {
  return {
    name,
    type: 'contains',
    evaluate(item: EvalInputItem): Promise<EvalOutputItem> {
      const wanted = (
        Array.isArray(item.expected_output_obj) ? item.expected_output_obj : [item.expected_output_obj]
      )
        .map(textOf)
        .filter((t) => t !== '');
      const output = normalized(textOf(item.output_obj), false, config.case_sensitive);
      const missing = wanted.filter((t) => !output.includes(normalized(t, false, config.case_sensitive)));
      const score = wanted.length === 0 ? 1 : (wanted.length - missing.length) / wanted.length;
      const reasoning =
        wanted.length === 0
          ? 'nothing was expected'
          : missing.length === 0
            ? 'the answer contains the expected text'
            : `the answer lacks ${missing.map((m) => `"${clip(m, 80)}"`).join(', ')}`;
      return Promise.resolve({ id: item.id, score, reasoning });
    },
  };
}
