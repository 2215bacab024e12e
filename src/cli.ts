#!/usr/bin/env node
import './core/gc-start-up';
import 'reflect-metadata';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type AppConfig, type ConfigOverride } from './config/config.loader';
import { componentReport, formatReport, readPlain } from './config/component-report';
import { ANONYMOUS } from './core/identity/identity';
import { builtinRegistry } from './runtime/builtin-functions';
import { runWorkflow } from './runtime/workflow-runner';
import { resultText } from './runtime/chat-completion';
import { isLogLevel, LOG_LEVELS } from './core/logging/http-logging';
import { createApp } from './main';
import { startupTimings } from './core/logging/startup-timings';
import { servingFromNow, workingFromNow } from './core/gc-tuning';
import { createWorker } from './jobs/worker';
import { ShutdownReport } from './monitoring/shutdown-report';
import { checkListen, listenAddress, listenFailure, parsePort, type ListenAddress } from './listen';

const DEFAULT_CONFIG = resolve(__dirname, '..', 'config', 'default.yml');

/** The config options every command takes, named as `interlude` and as `nat serve` name them. */
interface ConfigOptions {
  config?: string;
  config_file?: string;
  override?: string[];
}

function withConfigOptions(command: Command, what: string): Command {
  return command
    .option('--config <file>', `YAML config file${what}`)
    .addOption(new Option('--config_file <file>', 'the same as --config (as `nat serve` names it)'))
    .option(
      '--override <key_value...>',
      'KEY VALUE: set a dotted path of the file to a YAML scalar, e.g. general.front_end.port 9000 (repeatable)',
    );
}

/** The config file: `--config`/`--config_file`, else INTERLUDE_CONFIG, NAT_CONFIG_FILE or `fallback`. */
function configFile(opts: ConfigOptions, command: Command, fallback?: string): string {
  const file =
    opts.config ??
    opts.config_file ??
    (process.env.INTERLUDE_CONFIG || undefined) ??
    (process.env.NAT_CONFIG_FILE || undefined) ??
    fallback;
  if (file === undefined) command.error("error: required option '--config <file>' not specified");
  return file!;
}

function overridesOf(opts: ConfigOptions, command: Command): ConfigOverride[] {
  const flat = opts.override ?? [];
  if (flat.length % 2 !== 0) command.error('error: --override takes a KEY and a VALUE each time');
  const pairs: ConfigOverride[] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  return pairs;
}

function load(opts: ConfigOptions, command: Command, fallback?: string): AppConfig {
  try {
    const config = loadConfig(
      resolve(configFile(opts, command, fallback)),
      builtinRegistry(),
      process.env,
      overridesOf(opts, command),
    );
    for (const warning of config.warnings) process.stderr.write(`warning: ${warning}\n`);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

function port(value: string): number {
  const n = parsePort(value);
  if (n === undefined) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
}

/** Says why the server cannot listen there, and exits 1 (before it says it started). */
function cannotListen(address: ListenAddress): (err: unknown) => never {
  return (err) => {
    process.stderr.write(`Interlude could not start: ${listenFailure(err, address)}\n`);
    process.exit(1);
  };
}

const program = new Command()
  .name('interlude')
  .description('Agent workflow server: NeMo Agent Toolkit compatible HTTP, chat and OpenAI faces');

withConfigOptions(
  program.command('serve').description('Start the server'),
  ' (default: INTERLUDE_CONFIG, NAT_CONFIG_FILE or config/default.yml)',
)
  .option('--host <host>', 'interface to listen on (env: INTERLUDE_HOST; overrides general.front_end.host)')
  .option('--port <port>', 'port to listen on (env: INTERLUDE_PORT; overrides general.front_end.port)', port)
  .action(async (opts: ConfigOptions & { host?: string; port?: number }, command: Command) => {
    const config = load(opts, command, DEFAULT_CONFIG);
    const frontEnd = config.settings.general.front_end;
    const level = process.env.LOG_LEVEL || 'info';
    if (!isLogLevel(level)) {
      process.stderr.write(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${level}")\n`);
      process.exit(2);
    }
    let address: ListenAddress;
    try {
      address = listenAddress(opts, frontEnd, process.env);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(2);
    }
    await checkListen(address).catch(cannotListen(address));
    const app = await createApp(config, { log: { level }, host: address.host }).catch((err: unknown) => {
      process.stderr.write(
        `Interlude could not start: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    });
    await app.listen(address.port, address.host).catch(cannotListen(address));
    startupTimings.step('listening');
    servingFromNow();
    // Whatever still holds the server open after the grace period (general.shutdown_grace_seconds).
    const grace = config.settings.general.shutdown_grace_seconds * 1000;
    const report = app.get(ShutdownReport);
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () =>
        setTimeout(async () => {
          const held = await report.describe().catch((err: Error) => `(no report: ${err.message})`);
          process.stderr.write(
            `Interlude had not stopped ${grace / 1000} s after ${signal} (general.shutdown_grace_seconds): exiting; ${held}\n`,
          );
          process.exit(1);
        }, grace).unref(),
      );
    }
    const url = await app.getUrl();
    process.stdout.write(
      `Interlude serving "${config.workflow.type}" from ${config.file} at ${url} (docs: ${url}/docs)\n`,
    );
  });

withConfigOptions(
  program
    .command('validate')
    .description(
      'Check a config file: what each component does here, every problem; exits non-zero when serve would not start',
    ),
  ' (default: INTERLUDE_CONFIG or NAT_CONFIG_FILE)',
).action((opts: ConfigOptions, command: Command) => {
  const file = resolve(configFile(opts, command));
  const registry = builtinRegistry();
  let config: AppConfig | undefined;
  let error: ConfigError | undefined;
  try {
    config = loadConfig(file, registry, process.env, overridesOf(opts, command));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    error = err;
  }
  const plain = readPlain(file);
  if (plain !== undefined) {
    const problems = error?.problems.map((p) => p.path) ?? [];
    const lines = componentReport(plain, registry, problems, config?.warningPaths ?? []);
    process.stdout.write(`${file}: components\n${formatReport(lines)}`);
  }
  for (const warning of config?.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
  if (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stdout.write(`${config!.file}: valid (workflow: ${config!.workflow.type})\n`);
});

withConfigOptions(
  program.command('run').description('Run the workflow once with a text input and print its output'),
  ' (default: INTERLUDE_CONFIG or NAT_CONFIG_FILE)',
)
  .requiredOption('--input <text>', 'the input message')
  .action(async (opts: ConfigOptions & { input: string }, command: Command) => {
    const config = load(opts, command);
    const workflow = config.workflow;
    const input = workflow.fromChat({ messages: [{ role: 'user', content: opts.input }] });
    workingFromNow();
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

withConfigOptions(
  program
    .command('worker')
    .description(
      'Run async jobs from the queue (general.async.queue: redis or postgres); any number of them',
    ),
  ' (default: INTERLUDE_CONFIG, NAT_CONFIG_FILE or config/default.yml)',
).action(async (opts: ConfigOptions, command: Command) => {
  const config = load(opts, command, DEFAULT_CONFIG);
  const settings = config.settings.general.async;
  if (settings.queue === 'in_process') {
    process.stderr.write(
      'interlude worker needs general.async.queue: redis or postgres (the config says in_process)\n',
    );
    process.exit(2);
  }
  await createWorker(config);
  servingFromNow();
  process.stdout.write(
    `Interlude worker ready: "${config.workflow.type}" from ${config.file}, queue ${settings.queue} ${settings.queue_name}\n`,
  );
});

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
