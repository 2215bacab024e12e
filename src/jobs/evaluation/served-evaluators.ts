import { Injectable } from '@nestjs/common';
import { ServerConfig } from '../../config/server-config';
import { AppError, ErrorCode } from '../../core/errors/app-error';
import { EvaluatorBusyError, type EvalInputItem, type Evaluator } from './evaluators/evaluator';
import { buildEvaluators } from './evaluators/evaluators';
import { RegexSandbox } from './evaluators/regex-sandbox';

export interface EvaluateItemResult {
  success: boolean;
  result: { id: unknown; score: number | boolean | null; reasoning: unknown } | null;
  error: string | null;
}

/**
 * The evaluators of the served config's `eval.evaluators` (NAT's server builds its `/evaluate/item`
 * evaluators from its config's eval section the same way). Judges use the served config's `llms`.
 */
@Injectable()
export class ServedEvaluators {
  private readonly evaluators: Map<string, Evaluator>;

  constructor(server: ServerConfig, regex: RegexSandbox) {
    const configs = server.app.eval?.evaluators ?? new Map();
    this.evaluators = buildEvaluators(configs, {
      regex,
      judge: (name) => ({ llm: server.app.llms.get(name)! }),
    });
  }

  get names(): string[] {
    return [...this.evaluators.keys()];
  }

  /**
   * One item through one evaluator: NAT's EvaluateItemResponse; an evaluator that throws is
   * `success: false`, one whose shared workers are busy for `caller` a 429 (general.sandbox).
   */
  async evaluate(
    name: string,
    item: EvalInputItem,
    signal: AbortSignal,
    caller: string,
  ): Promise<EvaluateItemResult> {
    const evaluator = this.evaluators.get(name);
    if (!evaluator) {
      throw new AppError(
        ErrorCode.NotFound,
        `Evaluator '${name}' not found. Available evaluators: ${JSON.stringify(this.names)}`,
      );
    }
    try {
      const { id, score, reasoning } = await evaluator.evaluate(item, signal, caller);
      return { success: true, result: { id, score, reasoning }, error: null };
    } catch (err) {
      if (err instanceof EvaluatorBusyError) {
        throw new AppError(ErrorCode.TooManyWaiting, `Evaluation refused: ${err.message}`, {
          headers: { 'Retry-After': '1' },
        });
      }
      return { success: false, result: null, error: `Evaluation failed: ${(err as Error).message}` };
    }
  }
}
