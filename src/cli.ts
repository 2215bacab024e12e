#!/usr/bin/env node
import 'reflect-metadata';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type AppConfig } from './config/config.loader';
import { ANONYMOUS } from './core/identity/identity';
import { builtinRegistry } from './runtime/builtin-functions';
import { runWorkflow } from './runtime/workflow-runner';
import { resultText } from './core/dto/chat-response';
import { isLogLevel, LOG_LEVELS } from './core/logging/http-logging';
import { createApp } from './main';

const DEFAULT_CONFIG = resolve(__dirname, '..', 'config', 'default.yml');

function load(file: string): AppConfig {
  try {
    return loadConfig(resolve(file), builtinRegistry());
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

const program = new Command()
  .name('interlude')
  .description('Agent workflow server: NeMo Agent Toolkit compatible HTTP, chat and OpenAI faces');

program
  .command('serve')
  .description('Start the server')
  .option('--config <file>', 'YAML config file', process.env.INTERLUDE_CONFIG ?? DEFAULT_CONFIG)
  .option('--host <host>', 'interface to listen on (overrides general.front_end.host)')
  .option('--port <port>', 'port to listen on (overrides general.front_end.port)', port)
  .action(async (opts: { config: string; host?: string; port?: number }) => {
    const config = load(opts.config);
    const frontEnd = config.settings.general.front_end;
    const level = process.env.LOG_LEVEL || 'info';
    if (!isLogLevel(level)) {
      process.stderr.write(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${level}")\n`);
      process.exit(2);
    }
    const app = await createApp(config, { log: { level } });
    const host = opts.host ?? frontEnd.host;
    await app.listen(opts.port ?? frontEnd.port, host);
    const url = await app.getUrl();
    process.stdout.write(
      `Interlude serving "${config.workflow.type}" from ${config.file} at ${url} (docs: ${url}/docs)\n`,
    );
  });

program
  .command('validate')
  .description('Check a config file; prints every problem and exits non-zero when there is one')
  .requiredOption('--config <file>', 'YAML config file')
  .action((opts: { config: string }) => {
    const config = load(opts.config);
    process.stdout.write(`${config.file}: valid (workflow: ${config.workflow.type})\n`);
  });

program
  .command('run')
  .description('Run the workflow once with a text input and print its output')
  .requiredOption('--config <file>', 'YAML config file')
  .requiredOption('--input <text>', 'the input message')
  .action(async (opts: { config: string; input: string }) => {
    const config = load(opts.config);
    const workflow = config.workflow;
    const input = workflow.fromChat({ messages: [{ role: 'user', content: opts.input }] });
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort(new Error('interrupted')));
    try {
      const result = await runWorkflow(workflow, input, {
        executionId: 'cli',
        identity: ANONYMOUS,
        request: { method: 'CLI', path: '', headers: {}, query: {}, cookies: {} },
        signal: controller.signal,
        sink: {
          publish: () => undefined,
          prompt: () =>
            Promise.reject(new Error('`interlude run` cannot ask a human; use `interlude serve`')),
          authenticate: () =>
            Promise.reject(new Error('`interlude run` cannot authorize with OAuth; use `interlude serve`')),
        },
      });
      process.stdout.write(`${resultText(result)}\n`);
    } catch (err) {
      process.stderr.write(`Workflow failed: ${(err as Error).message}\n`);
      process.exit(1);
    }
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
