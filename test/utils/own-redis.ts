import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './cli';

/**
 * A `redis-server` of the test's own on a free port, keeping nothing on disk (as the deployment's
 * Redis here does), that a test may kill and start again empty. The machine's shared Redis is never
 * stopped.
 */
export class OwnRedis {
  private child?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.up();
    return redis;
  }

  /** Whether the server is killed (between `down` and `up`). */
  get isDown(): boolean {
    return this.child === undefined;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (empty) and waits until it accepts connections. */
  async up(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Kills the server (SIGKILL: nothing is saved) and waits until it has exited. */
  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
