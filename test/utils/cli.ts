import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { START_MS } from './timing';

// `npm test` builds first; run `npm run build` before `npx jest --selectProjects e2e`.
export const ROOT = resolve(__dirname, '..', '..');
export const CLI = resolve(ROOT, 'dist', 'cli.js');
export const config = (name: string) => resolve(ROOT, 'config', name);
export const fixture = (name: string) => resolve(ROOT, 'test', 'fixtures', name);

/** The environment the CLI runs in: ours, minus anything that would change which config or port it picks. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const key of [
    'INTERLUDE_CONFIG',
    'NAT_CONFIG_FILE',
    'INTERLUDE_HOST',
    'INTERLUDE_PORT',
    'WORKFLOW_DESCRIPTION',
    'LOG_LEVEL',
  ]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cliEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), START_MS);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export interface Serving {
  child: ChildProcess;
  /** The line `serve` prints once it listens. */
  line: string;
  /** The base URL from that line. */
  url: string;
  /** What it printed so far (it goes on printing after the line). */
  output(): { stdout: string; stderr: string };
}

const servers = new Set<ChildProcess>();

export interface ServeOptions {
  /** Where it runs (default: the repository). */
  cwd?: string;
  /** How long it may take to listen before it is killed and the start fails (default START_MS, test/utils/timing.ts). */
  timeoutMs?: number;
}

/** Starts `interlude serve` and waits for the line it prints once it listens. */
export function serve(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: ServeOptions = {},
): Promise<Serving> {
  const { cwd = ROOT, timeoutMs = START_MS } = options;
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { cwd, env: cliEnv(env) });
  return served(child, timeoutMs);
}

/**
 * The same on a terminal, as a person runs it: in a pseudo-terminal made by util-linux `script`, which
 * passes SIGTERM on to the server. Its output, stderr included, is what the terminal shows (`\r\n`
 * line ends).
 */
export function serveOnTerminal(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const command = `exec ${[process.execPath, CLI, 'serve', ...args].map((a) => JSON.stringify(a)).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: cliEnv(env) });
  return served(child, START_MS);
}

function served(child: ChildProcess, timeoutMs: number): Promise<Serving> {
  servers.add(child);
  return new Promise((done, fail) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(
        new Error(
          `serve printed no "Interlude serving" line in ${timeoutMs / 1000}s.\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split(/\r?\n/).find((l) => l.startsWith('Interlude serving'));
      const url = line && /at (http:\/\/\S+)/.exec(line)?.[1];
      if (line && url) {
        clearTimeout(timer);
        done({ child, line, url, output: () => ({ stdout, stderr }) });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fail(
        new Error(
          `serve exited (${code ?? signal}) before listening.\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  servers.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** For a CLI spec file: the build must be there, and every server a test started is stopped after it. */
export function stopServersAfterEach(): void {
  beforeAll(() => {
    if (!existsSync(CLI)) {
      throw new Error(
        `${CLI} is missing: run "npm run build" first ("npm test" builds before running jest).`,
      );
    }
  });

  afterEach(async () => {
    await Promise.all([...servers].map(stop));
  });
}
