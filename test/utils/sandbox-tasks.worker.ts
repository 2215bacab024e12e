import { threadId } from 'node:worker_threads';
import { serveTasks } from '../../src/core/workers/worker-protocol';

/** A worker for WorkerSandbox's tests: each task names what the worker does with it. */
export type SandboxTask =
  | { echo: unknown }
  | { fail: string }
  | { spinMs: number }
  | { exit: number }
  | { hog: true }
  | { thread: true };

function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const hoarded: unknown[] = [];

function run(task: SandboxTask): unknown {
  if ('echo' in task) return task.echo;
  if ('fail' in task) throw new Error(task.fail);
  if ('spinMs' in task) return spin(task.spinMs);
  if ('exit' in task) process.exit(task.exit);
  if ('hog' in task) for (;;) hoarded.push(new Array(100_000).fill(hoarded.length));
  return threadId;
}

// A worker slow to load: its tasks' time limits count from when it is ready, not from its start.
spin(Number(process.env.SANDBOX_LOAD_MS ?? 0));
serveTasks(run);
