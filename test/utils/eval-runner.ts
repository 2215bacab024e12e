import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Identity } from '../../src/core/identity/identity';
import type { DatasetEvaluationRunner } from '../../src/jobs/evaluation/dataset-evaluation.runner';
import { EvaluationRunner, type EvaluationOutcome } from '../../src/jobs/evaluation/evaluation-runner';
import type { EvalOutput } from '../../src/jobs/evaluation/evaluators/evaluator';
import { anIdentity } from './builders';
import type { TestApp } from './test-app';

/** The example evaluation files shipped in config/examples/eval/. */
export const EXAMPLES = resolve(__dirname, '../../config/examples/eval');

/** A fresh folder for a test's evaluation files or outputs. */
export function aFolder(prefix = 'interlude-eval-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `files` (name → text) into a fresh folder; returns the folder. */
export function filesIn(files: Record<string, string>): string {
  const dir = aFolder();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * Runs an evaluation file through the app's EvaluationRunner, as the job system does; `folder` is where
 * the outcome's `outputPath` (relative to the output root) is on disk.
 */
export async function runEvaluation(
  t: TestApp,
  configFile: string,
  options: { jobId?: string; identity?: Identity; signal?: AbortSignal; reps?: number } = {},
): Promise<EvaluationOutcome & { folder: string }> {
  const runner = t.app.get(EvaluationRunner, { strict: false }) as DatasetEvaluationRunner;
  const outcome = await runner.run({
    jobId: options.jobId ?? randomUUID(),
    configFile,
    reps: options.reps ?? 1,
    identity: options.identity ?? anIdentity(),
    signal: options.signal ?? new AbortController().signal,
  });
  return { ...outcome, folder: join(resolve(runner.outputRoot), outcome.outputPath) };
}

/** The JSON files an evaluation wrote, by name. */
export function outputsIn(folder: string): Record<string, unknown> {
  return Object.fromEntries(
    readdirSync(folder).map((name) => [
      name,
      JSON.parse(readFileSync(join(folder, name), 'utf8')) as unknown,
    ]),
  );
}

/** `<evaluator>_output.json`'s scores by item id. */
export function scoresOf(output: unknown): Record<string, unknown> {
  const { eval_output_items } = output as EvalOutput;
  return Object.fromEntries(eval_output_items.map((i) => [String(i.id), i.score]));
}
