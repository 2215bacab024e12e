import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  MaxLength,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';
import { validatePlain } from '../core/validation/validation-issues';
import { INTERMEDIATE_STEP_TYPES, type IntermediateStepType } from '../runtime/intermediate-step';
import { takeNatFields, takeNatPaths, type NatFields } from '../runtime/nat-fields';

/*
 * The `eval` section, in NeMo Agent Toolkit's layout (`eval.general.dataset`, `eval.evaluators`). In the
 * served config it names the evaluators `POST /evaluate/item` offers; in an evaluation file (`POST
 * /evaluate`) it also names the dataset. The evaluators themselves live in jobs/evaluation.
 */

type Loc = (string | number)[];

export const DATASET_TYPES = ['json', 'jsonl', 'csv'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** NAT's dataset `structure`: which keys hold what. */
export class EvalDatasetStructureConfig {
  @IfPresent() @IsString() question_key = 'question';
  @IfPresent() @IsString() answer_key = 'answer';
  /** The key of the workflow's answer in workflow_output.json. */
  @IfPresent() @IsString() generated_answer_key = 'generated_answer';
  /** The key of the run's intermediate steps in workflow_output.json. */
  @IfPresent() @IsString() trajectory_key = 'intermediate_steps';
  /** A dataset column with the tools the workflow should call (a list, or `a,b` in CSV). */
  @IfPresent() @IsString() expected_trajectory_key = 'expected_intermediate_steps';
}

export class EvalDatasetConfig {
  @IsDefined() @IsIn(DATASET_TYPES as unknown as string[]) _type!: DatasetType;
  /** Relative to the evaluation file's folder, and inside it. */
  @IsDefined() @IsString() @MinLength(1) file_path!: string;
  @IfPresent() @IsString() id_key = 'id';
  @IfPresent() @ValidateNested() @Type(() => EvalDatasetStructureConfig) structure =
    new EvalDatasetStructureConfig();
  /** A bigger file is refused before it is read. */
  @IfPresent() @Max(100 * 1024 * 1024) @Min(1) @IsInt() max_bytes = 10 * 1024 * 1024;
  /** A dataset with more rows is refused. */
  @IfPresent() @Max(100_000) @Min(1) @IsInt() max_items = 10_000;
}

export class EvalOutputConfig {
  /** NAT's `output.dir`; the server writes each job under its own output root instead (docs/jobs-and-evaluation.md). */
  @IfPresent() @IsString() dir?: string;
  @IfPresent() @IsBoolean() cleanup = true;
  /** Step types kept in workflow_output.json (default: all but LLM_NEW_TOKEN and SPAN_CHUNK). */
  @IfPresent()
  @IsArray()
  @IsIn(INTERMEDIATE_STEP_TYPES as unknown as string[], { each: true })
  workflow_output_step_filter?: IntermediateStepType[];
}

export const DEFAULT_EVAL_OUTPUT_DIR = './.tmp/interlude/eval';

export class EvalGeneralConfig {
  /** Dataset items run at once. */
  @IfPresent() @Max(64) @Min(1) @IsInt() max_concurrency = 8;
  /**
   * In the served config: the folder every evaluation job writes under (`<output_dir>/<job_id>/`).
   * In an evaluation file it is accepted for NAT compatibility and not used by the server.
   */
  @IfPresent() @IsString() @MinLength(1) output_dir = DEFAULT_EVAL_OUTPUT_DIR;
  @IfPresent() @ValidateNested() @Type(() => EvalOutputConfig) output?: EvalOutputConfig;
  @IfPresent() @ValidateNested() @Type(() => EvalDatasetConfig) dataset?: EvalDatasetConfig;
  /**
   * A config file whose workflow each item runs through (relative to the evaluation file's folder,
   * and inside it). Default: the evaluation file's own `workflow:` if it has one, else the served one.
   */
  @IfPresent() @IsString() @MinLength(1) workflow_config_file?: string;
  @IfPresent() @IsString() workflow_alias?: string;
}

export const EVALUATOR_TYPES = ['exact_match', 'contains', 'regex', 'trajectory', 'llm_judge'] as const;
export type EvaluatorType = (typeof EVALUATOR_TYPES)[number];

/** The output text equals the expected answer. */
export class ExactMatchConfig {
  @IsDefined() @IsIn(['exact_match']) _type!: 'exact_match';
  @IfPresent() @IsBoolean() case_sensitive = true;
  /** Trim both texts and collapse runs of white space before comparing. */
  @IfPresent() @IsBoolean() normalize_whitespace = true;
}

/** The output text contains the expected answer (each of them, when it is a list). */
export class ContainsConfig {
  @IsDefined() @IsIn(['contains']) _type!: 'contains';
  @IfPresent() @IsBoolean() case_sensitive = false;
}

export const MAX_REGEX_PATTERN = 1000;

/** The output text matches a pattern: `pattern`, or the item's expected answer read as one. */
export class RegexConfig {
  @IsDefined() @IsIn(['regex']) _type!: 'regex';
  @IfPresent() @IsString() @MaxLength(MAX_REGEX_PATTERN) @MinLength(1) pattern?: string;
  @IfPresent()
  @IsString()
  @Matches(/^[imsu]{0,4}$/, { message: 'flags may be i, m, s and u' })
  flags = '';
  /** A longer output is an error for that item, not matched. */
  @IfPresent() @Max(1_000_000) @Min(1) @IsInt() max_input_chars = 20_000;
  /** A match that takes longer is stopped (its worker is restarted) and the item gets an error. */
  @IfPresent() @Max(60_000) @Min(10) @IsInt() timeout_ms = 1000;
}

export const TRAJECTORY_ORDERS = ['exact', 'in_order', 'any_order'] as const;
export type TrajectoryOrder = (typeof TRAJECTORY_ORDERS)[number];

/** The tools the workflow called (TOOL_END steps), against the expected ones. */
export class TrajectoryConfig {
  @IsDefined() @IsIn(['trajectory']) _type!: 'trajectory';
  /**
   * `exact`: the same tools in the same order, nothing else. `in_order`: the expected tools in that
   * order, others allowed between. `any_order`: each expected tool called. Partial credit for the last two.
   */
  @IfPresent() @IsIn(TRAJECTORY_ORDERS as unknown as string[]) order: TrajectoryOrder = 'in_order';
  /** The expected tools for every item; default: the item's expected trajectory from the dataset. */
  @IfPresent() @IsArray() @IsString({ each: true }) expected_tools?: string[];
}

/** A configured model scores the answer against the reference with a rubric. */
export class LlmJudgeConfig {
  @IsDefined() @IsIn(['llm_judge']) _type!: 'llm_judge';
  /** An entry of `llms:` (the evaluation file's, then the served config's). */
  @IsDefined() @IsString() llm_name!: string;
  @IfPresent() @IsString() @MaxLength(8000) rubric?: string;
  /** Texts longer than this are cut (with a note to the judge) before they are sent. */
  @IfPresent() @Max(200_000) @Min(100) @IsInt() max_chars = 8000;
}

export type EvaluatorConfig =
  ExactMatchConfig | ContainsConfig | RegexConfig | TrajectoryConfig | LlmJudgeConfig;

const EVALUATOR_SCHEMAS: Record<EvaluatorType, new () => EvaluatorConfig> = {
  exact_match: ExactMatchConfig,
  contains: ContainsConfig,
  regex: RegexConfig,
  trajectory: TrajectoryConfig,
  llm_judge: LlmJudgeConfig,
};

/** The section as validated: general settings and the evaluators by name. */
export class EvalSection {
  @IfPresent() @ValidateNested() @Type(() => EvalGeneralConfig) general = new EvalGeneralConfig();
  @IfPresent() @IsObject() evaluators: Record<string, unknown> = {};
}

export interface CheckedEval {
  general: EvalGeneralConfig;
  evaluators: Map<string, EvaluatorConfig>;
}

const NOT_HERE = 'not used by Interlude';
const PROFILER =
  "NAT's profiler does not run here; workflow_output.json carries each item's intermediate steps";

/** NAT's `eval.general` members that configure nothing here. */
const EVAL_NAT_PATHS: Record<string, string> = {
  'general.profiler': PROFILER,
  'general.verbose': 'evaluation progress is the job status (GET /evaluate/job/{id})',
  'general.validate_llm_endpoints': 'LLM endpoints are reached when the first item runs',
  'general.per_input_user_id': 'every item runs as the caller of /evaluate',
  'general.output.write_atif_workflow_output':
    "workflow_output.json is written in NAT's intermediate-step format only",
  'general.output.job_management': 'jobs are kept and evicted as general.async says',
  'general.output.remote_dir': "results are written under the job's folder only (no S3 upload)",
  'general.output.s3': "results are written under the job's folder only (no S3 upload)",
  'general.output.custom_scripts': 'Python scripts do not run here',
  'general.output.custom_pre_eval_process_function': 'Python functions do not run here',
  'general.dataset.filter': 'every item of the dataset runs',
  'general.dataset.structure.disable': NOT_HERE,
  'general.dataset.s3': 'datasets are read from a file beside the evaluation file',
  'general.dataset.remote_file_path': 'datasets are read from a file beside the evaluation file',
  'general.dataset.function': 'Python functions do not run here',
  'general.dataset.kwargs': 'Python functions do not run here',
};

/** NAT's trajectory evaluator asks a model; Interlude's compares the tools called. */
const TRAJECTORY_NAT_FIELDS: NatFields = {
  ignored: {
    llm_name: 'the trajectory evaluator compares the tools called with the expected ones, without a model',
    enable_atif_evaluator: 'the trajectory evaluator reads intermediate steps',
  },
};

/** Evaluator names become file names (`<name>_output.json`). */
const EVALUATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Checks an `eval` section: its shape, each evaluator against its `_type`'s schema, and that each
 * `llm_name` is one of `llmNames`. Every problem is returned, with its path from the file's root.
 */
export function checkEvalSection(
  raw: unknown,
  llmNames: string[],
  loc: Loc = ['eval'],
): {
  eval?: CheckedEval;
  problems: { loc: Loc; message: string }[];
  /** NAT fields accepted and ignored (not in an evaluation file's report: it has its own warnings). */
  ignored?: { loc: Loc; message: string }[];
} {
  const problems: { loc: Loc; message: string }[] = [];
  const natPaths = takeNatPaths(raw, EVAL_NAT_PATHS);
  const ignored = natPaths.notes.map((n) => ({ loc: [...loc, ...n.loc], message: n.message }));
  raw = natPaths.settings;
  const top = validatePlain(EvalSection, raw, loc, { forbidUnknown: true });
  if (!top.ok) problems.push(...top.issues.map((i) => ({ loc: i.loc, message: i.msg })));
  // The evaluators are checked even when the general settings have problems: every problem at once.
  const declared = top.ok ? top.value.evaluators : (raw as { evaluators?: unknown } | null)?.evaluators;
  const entries =
    declared !== null && typeof declared === 'object' && !Array.isArray(declared)
      ? Object.entries(declared)
      : [];
  const evaluators = new Map<string, EvaluatorConfig>();
  for (const [name, entry] of entries) {
    const at = [...loc, 'evaluators', name];
    if (!EVALUATOR_NAME.test(name) || name === 'workflow') {
      problems.push({
        loc: at,
        message: 'an evaluator name is letters, digits, _ and - (at most 64), and not "workflow"',
      });
      continue;
    }
    const type = (entry as { _type?: unknown } | null)?._type;
    if (entry === null || typeof entry !== 'object' || typeof type !== 'string') {
      problems.push({ loc: at, message: 'must be a mapping with a _type' });
      continue;
    }
    const schema = EVALUATOR_SCHEMAS[type as EvaluatorType] as (new () => EvaluatorConfig) | undefined;
    if (!Object.hasOwn(EVALUATOR_SCHEMAS, type) || !schema) {
      problems.push({
        loc: [...at, '_type'],
        message: `unknown _type "${type}"; known types: ${EVALUATOR_TYPES.join(', ')}`,
      });
      continue;
    }
    const nat = takeNatFields(
      entry as Record<string, unknown>,
      type === 'trajectory' ? TRAJECTORY_NAT_FIELDS : undefined,
    );
    ignored.push(...nat.notes.map((n) => ({ loc: [...at, ...n.loc], message: n.message })));
    const checked = validatePlain(schema, nat.settings, at, { forbidUnknown: true });
    if (!checked.ok) {
      problems.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
      continue;
    }
    const config = checked.value;
    if (config instanceof RegexConfig) {
      const problem = regexProblem(config);
      if (problem) {
        problems.push({ loc: [...at, problem.field], message: problem.message });
        continue;
      }
    }
    if (config instanceof LlmJudgeConfig && !llmNames.includes(config.llm_name)) {
      const known = llmNames.length ? `; llms: ${llmNames.join(', ')}` : ', and llms: declares none';
      problems.push({ loc: [...at, 'llm_name'], message: `no entry "${config.llm_name}" in llms${known}` });
      continue;
    }
    evaluators.set(name, config);
  }
  if (problems.length > 0 || !top.ok) return { problems, ignored };
  return { eval: { general: top.value.general, evaluators }, problems, ignored };
}

function regexProblem(config: RegexConfig): { field: string; message: string } | undefined {
  if (new Set(config.flags).size !== config.flags.length) {
    return { field: 'flags', message: 'a flag is given twice' };
  }
  if (config.pattern === undefined) return undefined;
  try {
    new RegExp(config.pattern, config.flags);
  } catch (err) {
    return { field: 'pattern', message: (err as Error).message };
  }
  return undefined;
}
