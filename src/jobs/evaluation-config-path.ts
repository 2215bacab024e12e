import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppError } from '../core/errors/app-error';

/**
 * The one answer for every config_file that cannot be used: one outside config_dir gets the same
 * message as one that does not exist, so the route tells nothing about the server's other files.
 */
export const UNUSABLE_CONFIG_FILE =
  'config_file must name an existing .yml or .yaml file inside general.evaluation.config_dir';

const refuse = (msg: string, input: string) =>
  AppError.validation([{ type: 'value_error', loc: ['body', 'config_file'], msg, input }]);

/** `path` lies strictly inside `root` (both absolute and in the same form: both real, or both not). */
function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}

export interface EvaluationConfigPath {
  /** Where the file is, links followed: what the runner reads. */
  absolute: string;
  /** The same file relative to config_dir: what answers show and the job row keeps. */
  relative: string;
}

/**
 * The evaluation config a `POST /evaluate` names (relative names are taken from the working directory,
 * as NeMo Agent Toolkit's server takes them). Containment is checked on the name before the file system
 * is asked anything, and again once links are followed.
 */
export function resolveEvaluationConfig(
  file: string,
  configDir: string,
  cwd = process.cwd(),
): EvaluationConfigPath {
  if (!/\.ya?ml$/i.test(file) || file.includes('\0')) throw refuse(UNUSABLE_CONFIG_FILE, file);
  const root = resolve(cwd, configDir);
  const named = resolve(cwd, file);
  if (!isInside(root, named)) throw refuse(UNUSABLE_CONFIG_FILE, file);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw refuse('general.evaluation.config_dir does not exist on this server', file);
  }
  let real: string;
  try {
    real = realpathSync(named);
  } catch {
    throw refuse(UNUSABLE_CONFIG_FILE, file);
  }
  if (!isInside(realRoot, real) || !statSync(real).isFile()) throw refuse(UNUSABLE_CONFIG_FILE, file);
  return { absolute: real, relative: relative(realRoot, real) };
}

/**
 * A job's config_file (as its row keeps it: relative to config_dir, or absolute in rows written before
 * it was relative) checked again when the job runs: the folder may have changed since it was submitted.
 */
export function evaluationConfigOfJob(stored: string, configDir: string, cwd = process.cwd()): string {
  const root = resolve(cwd, configDir);
  try {
    return resolveEvaluationConfig(resolve(root, stored), root, cwd).absolute;
  } catch (err) {
    // The job's error reads as a sentence, not as a request body's validation issue.
    throw new Error((err as AppError).extra?.issues?.[0]?.msg ?? UNUSABLE_CONFIG_FILE, { cause: err });
  }
}
