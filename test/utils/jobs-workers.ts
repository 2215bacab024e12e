import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { CLI, cliEnv, ROOT } from './cli';
import { START_MS } from './timing';

/** One `interlude worker` child process. */
export interface WorkerProcess {
  child: ChildProcess;
  name: string;
  output: () => string;
}

const workers = new Set<ChildProcess>();

/** Starts `interlude worker --config file` and waits for its ready line. */
export function startWorker(
  configFile: string,
  name: string,
  env: NodeJS.ProcessEnv = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [CLI, 'worker', '--config', configFile], {
    cwd: ROOT,
    env: cliEnv({ WORKER_NAME: name, ...env }),
  });
  workers.add(child);
  let out = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`worker ${name} not ready in ${START_MS} ms:\n${out}`)),
      START_MS,
    );
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('Interlude worker ready')) {
        clearTimeout(timer);
        done({ child, name, output: () => out });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`worker ${name} exited (${code ?? signal}):\n${out}`));
    });
  });
}

export async function stopWorkers(): Promise<void> {
  await Promise.all(
    [...workers].map(async (child) => {
      workers.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** Which worker ran which input: the scripted workflow calls `/ran?w=<worker>&i=<input>` first, `/end?…` last. */
export interface RunLog {
  url: string;
  /** Runs started (`/ran`), in order. */
  runs: { worker: string; input: string }[];
  /** Runs that reached their last step (`/end`). */
  ends: { worker: string; input: string }[];
  close(): Promise<void>;
}

export async function runLog(): Promise<RunLog> {
  const runs: { worker: string; input: string }[] = [];
  const ends: { worker: string; input: string }[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const run = { worker: url.searchParams.get('w') ?? '', input: url.searchParams.get('i') ?? '' };
    (url.pathname === '/end' ? ends : runs).push(run);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    runs,
    ends,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A schema of its own (job rows) and a BullMQ prefix of its own, so parallel runs never meet. */
export function isolatedStores(databaseUrl: string) {
  const tag = randomBytes(5).toString('hex');
  const schema = `jobs_e2e_${tag}`;
  const url = new URL(databaseUrl);
  url.searchParams.set('schema', schema);
  return {
    dbUrl: url.toString(),
    prefix: `e2e_${tag}`,
    async drop(): Promise<void> {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
        // BullMQ's schemas: bullmq_<queue_prefix>, one per cluster a test started (e2e_<tag>_<name>).
        const { rows } = await client.query<{ nspname: string }>(
          `select nspname from pg_namespace where nspname like 'bullmq_e2e_${tag}%'`,
        );
        for (const { nspname } of rows) await client.query(`drop schema if exists ${nspname} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
