import type { Identity } from '../../core/identity/identity';
import type { RequestMetadata } from '../../core/request-metadata';

/** One evaluation job as the job runner hands it over (`POST /evaluate`). */
export interface EvaluationRequest {
  jobId: string;
  /** Absolute path of the evaluation config, already resolved under the allowed directory. */
  configFile: string;
  /** How many times each dataset item is run (NeMo Agent Toolkit's `reps`). */
  reps: number;
  /** Who submitted the job; the workflow runs as this identity. */
  identity: Identity;
  /** Fires when the job is cancelled. */
  signal: AbortSignal;
  /** The submitting request's metadata (headers…), which each item's workflow sees; none by default. */
  request?: RequestMetadata;
}

/** What a finished evaluation leaves behind. */
export interface EvaluationOutcome {
  /**
   * The folder holding the workflow outputs and one JSON file per evaluator, relative to the output
   * root (`<owner folder>/<job id>`): what the job's `output_path` shows.
   */
  outputPath: string;
  /** Average score per evaluator name (null when no item could be scored). */
  averages: Record<string, number | null>;
}

/**
 * Runs an evaluation config: the dataset through the workflow, then every evaluator over the
 * outputs. The abstract class is the DI token; `jobs/evaluation` provides the implementation.
 */
export abstract class EvaluationRunner {
  abstract run(request: EvaluationRequest): Promise<EvaluationOutcome>;
}
