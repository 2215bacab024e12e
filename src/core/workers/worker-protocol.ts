import { parentPort } from 'node:worker_threads';

/**
 * What a WorkerSandbox and its worker say to each other: the worker says `ready` once it has loaded
 * (a time limit counts from there), then answers each task with its id and a value or an error.
 */
export interface WorkerTask<T> {
  id: number;
  task: T;
}
export type WorkerReply<R> = { ready: true } | { id: number; value: R } | { id: number; error: string };

/**
 * The worker's side, for a worker that is a module: runs each task with `run` and answers it. Outside
 * a worker thread (the module imported on the main thread) it does nothing.
 */
export function serveTasks<T, R>(run: (task: T) => R): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', ({ id, task }: WorkerTask<T>) => {
    let reply: WorkerReply<R>;
    try {
      reply = { id, value: run(task) };
    } catch (err) {
      reply = { id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies WorkerReply<R>);
}
