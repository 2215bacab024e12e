import type { NestExpressApplication } from '@nestjs/platform-express';
import { parseConfig, type AppConfig } from '../../src/config/config.loader';
import { createApp } from '../../src/main';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import type { FunctionRegistry } from '../../src/runtime/function-registry';
import { WAIT_MS } from './timing';

export interface TestApp {
  app: NestExpressApplication;
  url: string;
  config: AppConfig;
  close(): Promise<void>;
}

/** Builds a config from YAML text, as the server would from a file. */
export function configFrom(
  yaml: string,
  env: NodeJS.ProcessEnv = {},
  registry: FunctionRegistry = builtinRegistry(),
): AppConfig {
  return parseConfig(yaml, 'test.yml', registry, env);
}

/** The whole AppModule in-process on an ephemeral port. */
export async function startApp(yaml: string, registry?: FunctionRegistry): Promise<TestApp> {
  const config = configFrom(yaml, {}, registry);
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

export const ECHO_YAML = `
workflow:
  _type: echo
`;

export const ECHO_OPENAI_YAML = `
workflow:
  _type: echo
  use_openai_api: true
`;

/** A scripted workflow with the given steps (YAML list items, indented under `steps:`) and output. */
export function scriptedYaml(steps: string, output?: string, general = ''): string {
  return `${general}
workflow:
  _type: scripted
  steps:
${steps
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
${output === undefined ? '' : `  output: ${JSON.stringify(output)}`}
`;
}

/**
 * Polls `check` until it returns without throwing, or fails after `timeoutMs`. The pause between tries
 * starts at `intervalMs` and grows to a quarter second: a state that comes at once is seen at once, one
 * that takes seconds on a loaded machine costs a few requests rather than hundreds.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = WAIT_MS,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = intervalMs; ; pause = Math.min(pause * 1.5, Math.max(intervalMs, 250))) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/** Where in a run a scripted workflow can fail: after a step, mid-answer, or at once. */
export const FAILURE_POINTS: [string, string][] = [
  ['after a tool step', `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: 1 }`],
  ['after streaming part of the answer', `- stream: { text: 'partial answer' }`],
  ['at once', ''],
];

/** A scripted workflow that does `before`, then fails with "tool exploded" (ValueError). */
export function failingYaml(before: string): string {
  return scriptedYaml(
    `${before}\n- fail: { message: 'tool exploded', error_type: ValueError }`.trim(),
    'never',
  );
}
