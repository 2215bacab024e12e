import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { AppError } from '../core/errors/app-error';

const refuse = (msg: string, input: string) =>
  AppError.validation([{ type: 'value_error', loc: ['body', 'config_file'], msg, input }]);

/**
 * The evaluation config a `POST /evaluate` names, as an absolute path: a .yml/.yaml file that exists
 * and, links followed, lies inside `configDir`. Relative names are taken from the working directory.
 */
export function resolveEvaluationConfig(file: string, configDir: string, cwd = process.cwd()): string {
  if (!/\.ya?ml$/i.test(file)) throw refuse('config_file must end in .yml or .yaml', file);
  if (file.includes('\0')) throw refuse('config_file is not a valid path', file);
  let root: string;
  try {
    root = realpathSync(resolve(cwd, configDir));
  } catch {
    throw refuse('general.evaluation.config_dir does not exist on this server', file);
  }
  let real: string;
  try {
    real = realpathSync(resolve(cwd, file));
  } catch {
    throw refuse(`config_file ${file} does not exist`, file);
  }
  const inside = relative(root, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw refuse('config_file must be inside general.evaluation.config_dir', file);
  }
  if (!statSync(real).isFile()) throw refuse(`config_file ${file} is not a file`, file);
  return real;
}
