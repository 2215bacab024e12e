import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CLI, ROOT, cliEnv, freePort } from './cli';
import { ReplicaServices } from './replica-services';
import { START_MS, WAIT_MS } from './timing';

/**
 * Several real `interlude serve` processes (`node dist/cli.js serve`) on one Postgres schema and one
 * Redis key prefix: replicas behind a load balancer that can be killed with a signal and started
 * again, unlike the in-process apps of replica-apps.ts. Needs `npm run build` first.
 */

export interface ReplicaOptions {
  /** Merged into `general:` (e.g. `{ executions: { lease_seconds: 2 }, shutdown_grace_seconds: 5 }`). */
  general?: Record<string, unknown>;
  /**
   * Extra environment for every process, or for replica `index` (the config reads `${NAME}`: a
   * replica of its own way to PostgreSQL or Redis, e.g. one partitioned while the others are not).
   */
  env?: NodeJS.ProcessEnv | ((index: number) => NodeJS.ProcessEnv);
  /** How the replicas reach PostgreSQL and Redis, e.g. through a TcpProxy (`proxy.via`); directly when unset. */
  dbUrl?: (url: string) => string;
  redisUrl?: (url: string) => string;
}

export interface Response {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
  /** The replica that answered (its index). */
  replica: number;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

class Replica {
  child?: ChildProcess;
  output = '';
  exited: Promise<Exit> = Promise.resolve({ code: null, signal: null });
  constructor(
    readonly index: number,
    readonly port: number,
  ) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }
}

/** Every child started here, so a crashed test run still kills them (see the `exit` hook below). */
const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** Output kept per replica for failure messages (the tail). */
const OUTPUT_LIMIT = 64 * 1024;

export class ReplicaProcesses {
  readonly services = new ReplicaServices();
  readonly prefix = this.services.newPrefix();
  private readonly dir = mkdtempSync(join(tmpdir(), 'interlude-replicas-'));
  readonly configFile = join(this.dir, 'replicas.yml');
  private readonly replicas: Replica[] = [];
  private turn = 0;

  private constructor(
    yaml: string,
    private readonly options: ReplicaOptions,
  ) {
    const config = (parse(yaml) ?? {}) as Record<string, unknown>;
    const general = (config.general ?? {}) as Record<string, unknown>;
    const extra = options.general ?? {};
    config.general = {
      // Every test client comes from 127.0.0.1: per-address caps would count all users as one.
      max_waiting_executions_per_address: 100_000,
      ...general,
      ...extra,
      db_url: options.dbUrl ? options.dbUrl(this.services.dbUrl) : this.services.dbUrl,
      executions: {
        ...((general.executions as object) ?? {}),
        ...((extra.executions as object) ?? {}),
        store: 'postgres',
        redis_url: options.redisUrl ? options.redisUrl(this.services.redisUrl) : this.services.redisUrl,
        redis_key_prefix: this.prefix,
      },
    };
    writeFileSync(this.configFile, stringify(config));
  }

  /**
   * Starts `count` replicas of the config `yaml` (the workflow and the rest; `general.db_url` and
   * `general.executions` are set here) and waits until each answers /health/ready with 200. The
   * first starts alone, since it migrates the schema.
   */
  static async start(count: number, yaml: string, options: ReplicaOptions = {}): Promise<ReplicaProcesses> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first.`);
    const set = new ReplicaProcesses(yaml, options);
    try {
      for (let i = 0; i < count; i++) set.replicas.push(new Replica(i, await freePort()));
      await set.launch(0);
      await Promise.all(set.replicas.slice(1).map((r) => set.launch(r.index)));
    } catch (err) {
      await set.close();
      throw err;
    }
    return set;
  }

  get count(): number {
    return this.replicas.length;
  }

  url(i: number): string {
    return this.replicas[i].url;
  }

  /** The index of the replica the next round-robin request goes to (skipping stopped ones). */
  nextIndex(): number {
    for (let tries = 0; tries < this.replicas.length; tries++) {
      const r = this.replicas[this.turn++ % this.replicas.length];
      if (r.running) return r.index;
    }
    throw new Error(`no replica is running.\n${this.output()}`);
  }

  /**
   * A request to replica `to` (an index), or to the next one in turn when `to` is undefined. Each on a
   * connection of its own: a replica killed or cut off leaves no half-closed connection behind for the
   * next request of the test.
   */
  async request(
    method: string,
    path: string,
    { body, headers = {}, to }: { body?: unknown; headers?: Record<string, string>; to?: number } = {},
  ): Promise<Response> {
    const replica = to ?? this.nextIndex();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const res = await new Promise<IncomingMessage & { text: string }>((resolve, reject) => {
      const req = httpRequest(
        `${this.url(replica)}${path}`,
        {
          method,
          agent: false,
          headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
        },
        (incoming) => {
          let text = '';
          incoming.setEncoding('utf8');
          incoming.on('data', (chunk: string) => (text += chunk));
          incoming.on('end', () => resolve(Object.assign(incoming, { text })));
          incoming.on('error', reject);
        },
      );
      // A refused or reset connection says which replica, and what the replicas printed (one that died).
      req.on('error', (err) =>
        reject(new Error(`${method} ${path} on replica ${replica}: ${err.message}\n${this.output()}`)),
      );
      req.end(payload);
    });
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      // 204 and other empty bodies
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        responseHeaders.append(name, one);
      }
    }
    return { status: res.statusCode!, headers: responseHeaders, text: res.text, json, replica };
  }

  /**
   * GETs `path` on replica `to` every `everyMs` until `done` says so; after `within` ms, fails with the
   * last answer and the replicas' output. `send` replaces the GET (a test that records every answer).
   */
  async until(
    path: string,
    to: number,
    done: (res: Response) => boolean,
    {
      within = WAIT_MS,
      headers = {},
      everyMs = 250,
      send = () => this.request('GET', path, { to, headers }),
    }: {
      within?: number;
      headers?: Record<string, string>;
      everyMs?: number;
      send?: () => Promise<Response>;
    } = {},
  ): Promise<Response> {
    const deadline = Date.now() + within;
    for (;;) {
      const res = await send().catch((err: Error) => {
        throw new Error(`GET ${path} on ${to}: ${err.message}\n${this.output()}`);
      });
      if (done(res)) return res;
      if (Date.now() > deadline)
        throw new Error(`GET ${path} on ${to}: still ${res.status} ${res.text}\n${this.output()}`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  /** The indexes of the replicas that are not running (exited by themselves or killed). */
  exited(): number[] {
    return this.replicas.filter((r) => !r.running).map((r) => r.index);
  }

  /** Sends `signal` to replica `i` and waits for it to exit. */
  async kill(i: number, signal: 'SIGKILL' | 'SIGTERM'): Promise<Exit> {
    const r = this.replicas[i];
    if (r.running) r.child!.kill(signal);
    return r.exited;
  }

  /** Starts replica `i` again (after `kill`) on the same port, config and store. */
  async restart(i: number): Promise<void> {
    if (this.replicas[i].running) throw new Error(`replica ${i} is still running`);
    await this.launch(i);
  }

  /** Each replica's recent output (stdout and stderr), for failure messages. */
  output(): string {
    return this.replicas
      .map((r) => `--- replica ${r.index} (${r.url}) ---\n${r.output.slice(-OUTPUT_LIMIT)}`)
      .join('\n');
  }

  /** Kills every replica (SIGKILL: nothing to wait for), then drops the schema and keys. */
  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.kill(r.index, 'SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
    await this.services.cleanup();
  }

  private envOf(i: number): NodeJS.ProcessEnv | undefined {
    const env = this.options.env;
    return typeof env === 'function' ? env(i) : env;
  }

  private async launch(i: number): Promise<void> {
    const r = this.replicas[i];
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--config', this.configFile, '--host', '127.0.0.1', '--port', String(r.port)],
      { cwd: ROOT, env: cliEnv({ LOG_LEVEL: 'warn', ...this.envOf(i) }) },
    );
    alive.add(child);
    r.child = child;
    r.output += `\n[started pid ${child.pid}]\n`;
    // REPLICA_OUTPUT_DIR=<dir>: each replica's whole output also goes to <dir>/replica-<i>-<pid>.log.
    const file =
      process.env.REPLICA_OUTPUT_DIR && join(process.env.REPLICA_OUTPUT_DIR, `replica-${i}-${child.pid}.log`);
    const keep = (d: string) => {
      r.output = (r.output + d).slice(-OUTPUT_LIMIT);
      if (file) appendFileSync(file, d);
    };
    child.stdout!.setEncoding('utf8').on('data', keep);
    child.stderr!.setEncoding('utf8').on('data', keep);
    r.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        alive.delete(child);
        r.output += `\n[exited ${code ?? signal}]\n`;
        done({ code, signal });
      }),
    );
    const deadline = Date.now() + START_MS;
    for (;;) {
      if (!r.running) throw new Error(`replica ${i} exited while starting.\n${r.output}`);
      try {
        const res = await fetch(`${r.url}/health/ready`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`replica ${i} was not ready in ${START_MS} ms.\n${r.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
