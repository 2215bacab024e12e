import type { AppConfig, ConfigProblemAt } from '../../src/config/config.loader';
import { ConfigError, parseConfig } from '../../src/config/config.loader';
import { builtinRegistry } from '../../src/runtime/builtin-functions';

export const ECHO = 'workflow:\n  _type: echo\n';

export function parse(yaml: string, env: NodeJS.ProcessEnv = {}): AppConfig {
  return parseConfig(yaml, 'app.yml', builtinRegistry(), env);
}

/** The ConfigError a config raises (fails the test if it loads). */
export function errorOf(yaml: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parse(yaml, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected the config to be rejected');
}

export function problemAt(err: ConfigError, path: string): ConfigProblemAt {
  const found = err.problems.find((p) => p.path === path);
  if (!found) {
    throw new Error(
      `no problem at ${path}; found:\n${err.problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`,
    );
  }
  return found;
}
