import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DEFAULT_EVAL_OUTPUT_DIR } from '../../config/eval.schema';
import { ServerConfig } from '../../config/server-config';
import { ExecutionService } from '../../executions/engine/execution.service';
import { builtinRegistry } from '../../runtime/builtin-functions';
import type { RequestMetadata } from '../../runtime/workflow-context';
import { mapBounded } from './bounded';
import { loadDataset } from './dataset/dataset.loader';
import { EvaluationRunner, type EvaluationOutcome, type EvaluationRequest } from './evaluation-runner';
import { loadEvaluationFile, type EvaluationPlan } from './evaluation-file.loader';
import { averageScore, textOf, type EvalInputItem } from './evaluators/evaluator';
import { buildEvaluators, evaluateItems, type EvaluatorDeps } from './evaluators/evaluators';
import { RegexSandbox } from './evaluators/regex-sandbox';
import { runItem, type ItemRun } from './item-run';
import { prepareJobFolder, writeJsonFile } from './output-folder';

/** Workflow runs one evaluation may make (items × reps); a bigger one is refused before any runs. */
export const MAX_RUNS = 100_000;

/** The request a job's workflow sees when the job system passes none. */
const JOB_REQUEST: RequestMetadata = {
  method: 'POST',
  path: '/evaluate',
  headers: {},
  query: {},
  cookies: {},
};

/** Items × reps, with NeMo Agent Toolkit's ids for repetitions (`<id>_rep<n>`). */
function repeated(items: EvalInputItem[], reps: number): EvalInputItem[] {
  if (reps <= 1) return items;
  return Array.from({ length: reps }, (_, rep) =>
    items.map((item) => ({ ...item, id: `${String(item.id)}_rep${rep}` })),
  ).flat();
}

/**
 * Runs an evaluation file: every dataset item (× reps) through the workflow on the ExecutionService,
 * as the submitting identity and a bounded number at a time; then every evaluator over the outputs.
 * Writes `workflow_output.json` and one `<evaluator>_output.json` (NAT's EvalOutput) per evaluator
 * under `<eval.general.output_dir of the served config>/<owner folder>/<job id>/`. What it reports
 * (the folder, a failure's message) names paths relative to config_dir and output_dir only.
 */
@Injectable()
export class DatasetEvaluationRunner extends EvaluationRunner implements OnModuleDestroy {
  private readonly registry = builtinRegistry();
  /**
   * Jobs' matches have workers of their own: a flood of `POST /evaluate/item` never fails a job's items.
   * Each job takes its turn; its lines are bounded by its max_concurrency, so none is refused.
   */
  private readonly regex: RegexSandbox;

  constructor(
    private readonly executions: ExecutionService,
    private readonly server: ServerConfig,
  ) {
    super();
    this.regex = new RegexSandbox({ workers: server.general.sandbox.workers, maxQueue: Infinity });
  }

  async onModuleDestroy(): Promise<void> {
    await this.regex.close();
  }

  /** Where every job's folder is made. */
  get outputRoot(): string {
    return this.server.app.eval?.general.output_dir ?? DEFAULT_EVAL_OUTPUT_DIR;
  }

  async run(request: EvaluationRequest): Promise<EvaluationOutcome> {
    try {
      return await this.evaluate(request);
    } catch (err) {
      throw withoutServerPaths(err, [this.server.general.evaluation.config_dir, this.outputRoot]);
    }
  }

  private async evaluate(request: EvaluationRequest): Promise<EvaluationOutcome> {
    const { signal } = request;
    const plan = await loadEvaluationFile(request.configFile, this.server.app, this.registry);
    const dataset = await loadDataset(plan.datasetFile, plan.dataset);
    const reps = Number.isInteger(request.reps) && request.reps > 1 ? request.reps : 1;
    if (dataset.length * reps > MAX_RUNS) {
      throw new Error(`${dataset.length} items × ${reps} reps is more than ${MAX_RUNS} workflow runs`);
    }
    const items = repeated(dataset, reps);
    const evaluators = buildEvaluators(plan.evaluators, this.deps(plan));
    signal.throwIfAborted();
    const { absolute: folder, relative: outputPath } = await prepareJobFolder(
      this.outputRoot,
      request.identity.userId,
      request.jobId,
      plan.general.output?.cleanup ?? true,
    );

    const runs = await mapBounded(items, plan.general.max_concurrency, (item) =>
      runItem(item.input_obj, {
        executions: this.executions,
        identity: request.identity,
        request: request.request ?? JOB_REQUEST,
        workflow: plan.workflow,
        shape: plan.workflow ?? this.server.workflow,
        stepFilter: plan.general.output?.workflow_output_step_filter,
        signal,
      }),
    );
    signal.throwIfAborted();
    const evaluated = items.map((item, i) => ({
      ...item,
      output_obj: textOf(runs[i].output),
      trajectory: runs[i].trajectory,
    }));
    await writeJsonFile(folder, 'workflow_output.json', workflowOutput(plan, evaluated, runs));

    // A run that failed is a wrong answer: it scores 0 without asking the evaluator (or its model).
    const succeeded = evaluated.filter((_, i) => runs[i].error === undefined);
    const averages: Record<string, number | null> = {};
    for (const [name, evaluator] of evaluators) {
      const scored = await evaluateItems(
        evaluator,
        succeeded,
        signal,
        plan.general.max_concurrency,
        `job:${request.identity.userId ?? ''}:${request.jobId}`,
      );
      let next = 0;
      const outputItems = evaluated.map((item, i) => {
        const error = runs[i].error;
        if (error === undefined) return scored.eval_output_items[next++];
        return { id: item.id, score: 0, reasoning: `the workflow failed: ${error}`, error };
      });
      const output = { average_score: averageScore(outputItems), eval_output_items: outputItems };
      signal.throwIfAborted();
      await writeJsonFile(folder, `${name}_output.json`, output);
      averages[name] = output.average_score;
    }
    return { outputPath, averages };
  }

  private deps(plan: EvaluationPlan): EvaluatorDeps {
    return {
      regex: this.regex,
      judge: (name) => {
        // A model the evaluation file declares was built to pass general.outbound; the server's are trusted.
        return { llm: plan.llms.get(name) ?? this.server.app.llms.get(name)! };
      },
    };
  }
}

/**
 * The error with the server's folders (config_dir, output_dir: as configured and with links followed)
 * cut from its message, so a file is named relative to them: a job's error is shown to its submitter.
 */
function withoutServerPaths(err: unknown, folders: string[]): unknown {
  if (!(err instanceof Error)) return err;
  const prefixes = folders
    .flatMap((folder) => {
      const absolute = resolve(folder);
      const real = (() => {
        try {
          return realpathSync(absolute);
        } catch {
          return absolute;
        }
      })();
      return [absolute, real];
    })
    .map((folder) => folder + sep)
    .sort((a, b) => b.length - a.length);
  const message = prefixes.reduce((text, prefix) => text.split(prefix).join(''), err.message);
  if (message === err.message) return err;
  const cut = new Error(message);
  cut.name = err.name;
  return cut;
}

/** NAT's workflow_output.json: each item with the keys the dataset's `structure` names. */
function workflowOutput(plan: EvaluationPlan, items: EvalInputItem[], runs: ItemRun[]): unknown[] {
  const keys = plan.dataset.structure;
  return items.map((item, i) => ({
    id: item.id,
    [keys.question_key]: item.input_obj,
    [keys.answer_key]: item.expected_output_obj,
    [keys.generated_answer_key]: item.output_obj,
    [keys.trajectory_key]: item.trajectory,
    [keys.expected_trajectory_key]: item.expected_trajectory ?? [],
    ...(runs[i].error !== undefined ? { error: runs[i].error } : {}),
  }));
}
