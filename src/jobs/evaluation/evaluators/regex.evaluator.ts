import { MAX_REGEX_PATTERN, type RegexConfig } from '../../../config/eval.schema';
import { clip, EvaluatorError, textOf, type EvalInputItem, type Evaluator } from './evaluator';
import type { RegexSandbox } from './regex-sandbox';

/**
 * `regex`: 1 when the answer matches the pattern (the configured one, or the item's expected answer
 * read as a pattern), else 0. Pattern and answer are bounded, and the match runs in a worker with a
 * time limit.
 */
export function regexEvaluator(name: string, config: RegexConfig, sandbox: RegexSandbox): Evaluator {
  return {
    name,
    type: 'regex',
    async evaluate(item: EvalInputItem, signal: AbortSignal, caller: string) {
      const pattern = config.pattern ?? textOf(item.expected_output_obj);
      if (pattern === '')
        throw new EvaluatorError('no pattern: set pattern, or give the item an expected answer');
      if (pattern.length > MAX_REGEX_PATTERN) {
        throw new EvaluatorError(`the pattern is longer than ${MAX_REGEX_PATTERN} characters`);
      }
      try {
        new RegExp(pattern, config.flags);
      } catch (err) {
        throw new EvaluatorError(`invalid pattern: ${(err as Error).message}`);
      }
      const output = textOf(item.output_obj);
      if (output.length > config.max_input_chars) {
        throw new EvaluatorError(
          `the answer is ${output.length} characters, more than max_input_chars (${config.max_input_chars})`,
        );
      }
      signal.throwIfAborted();
      const matched = await sandbox.test(pattern, config.flags, output, config.timeout_ms, caller);
      const reasoning = `${matched ? 'matches' : 'does not match'} /${clip(pattern, 100)}/${config.flags}`;
      return { id: item.id, score: matched ? 1 : 0, reasoning };
    },
  };
}
