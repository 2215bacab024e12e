import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { WorkerOptions } from 'node:worker_threads';
import type { SandboxTask } from '../../../test/utils/sandbox-tasks.worker';
import { workerFromFile, WorkerSandbox, type WorkerFailures } from './worker-sandbox';

const WORKER_FILE = join(__dirname, '../../../test/utils/sandbox-tasks.worker.ts');

/** Failures read as `kind: detail`, so a test sees which one a task got. */
const failures: WorkerFailures = {
  busy: 'busy',
  stopped: 'stopped',
  timeout: (ms) => `timeout: ${ms}`,
  crashed: (error) => `crashed: ${error.code ?? error.message}`,
  exited: 'exited',
};

function aSandbox(
  maxQueue = 8,
  options: WorkerOptions = {},
  pool: { workers?: number; maxQueuedPerCaller?: number } = {},
) {
  let started = 0;
  const sandbox = new WorkerSandbox<SandboxTask, unknown>({
    start: () => {
      started++;
      return workerFromFile(WORKER_FILE, options);
    },
    maxQueue,
    ...pool,
    failures,
    error: (message) => new Error(message),
  });
  return { sandbox, started: () => started };
}

/** Settles with `name` once `promise` settles, for recording which of several ended first. */
const named = (name: string, promise: Promise<unknown>, ended: string[]) =>
  promise.then(
    () => ended.push(name),
    () => ended.push(name),
  );

describe('WorkerSandbox', () => {
  let sandboxes: WorkerSandbox<SandboxTask, unknown>[] = [];
  const make = (...args: Parameters<typeof aSandbox>) => {
    const made = aSandbox(...args);
    sandboxes.push(made.sandbox);
    return made;
  };
  afterEach(async () => {
    await Promise.all(sandboxes.map((s) => s.close()));
    sandboxes = [];
  });

  it('answers tasks in the order they came, from one worker', async () => {
    const { sandbox, started } = make();
    const answers = await Promise.all([1, 2, 3].map((n) => sandbox.run({ echo: { n } }, 10_000)));
    expect(answers).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(started()).toBe(1);
  });

  it('a task that throws in the worker is refused with its message, and the worker carries on', async () => {
    const { sandbox, started } = make();
    const thread = await sandbox.run({ thread: true }, 10_000);
    await expect(sandbox.run({ fail: 'no such thing' }, 10_000)).rejects.toThrow(/^no such thing$/);
    await expect(sandbox.run({ thread: true }, 10_000)).resolves.toBe(thread);
    expect(started()).toBe(1);
  });

  it('stops a task past its time limit without holding the event loop; the next runs in a new worker', async () => {
    const { sandbox, started } = make();
    const thread = await sandbox.run({ thread: true }, 10_000);
    // This thread's timers fire in the order they fall due, however loaded the machine: one due before the
    // limit fires while the task spins (the event loop is free), and the limit comes before one due later.
    const order: string[] = [];
    const timers = [setTimeout(() => order.push('0.2 s'), 200), setTimeout(() => order.push('1 s'), 1000)];
    try {
      await expect(sandbox.run({ spinMs: 60_000 }, 300).finally(() => order.push('stopped'))).rejects.toThrow(
        'timeout: 300',
      );
    } finally {
      timers.forEach(clearTimeout);
    }
    expect(order).toEqual(['0.2 s', 'stopped']);
    const next = await sandbox.run({ thread: true }, 10_000);
    expect(next).not.toBe(thread);
    expect(started()).toBe(2);
  });

  it('a task waiting behind a stuck one runs once the stuck one is stopped', async () => {
    const { sandbox } = make();
    await sandbox.run({ echo: 'warm' }, 10_000);
    const stuck = sandbox.run({ spinMs: 60_000 }, 300);
    const waiting = sandbox.run({ echo: 'after' }, 10_000);
    await expect(stuck).rejects.toThrow('timeout: 300');
    await expect(waiting).resolves.toBe('after');
  });

  it("counts a task's time limit from when its worker is ready, not from its start", async () => {
    const { sandbox } = make(8, { env: { ...process.env, SANDBOX_LOAD_MS: '1000' } });
    await expect(sandbox.run({ echo: 'loaded' }, 500)).resolves.toBe('loaded');
  });

  it('refuses at once past its queue', async () => {
    const { sandbox } = make(1);
    await sandbox.run({ echo: 0 }, 10_000);
    const running = sandbox.run({ spinMs: 60_000 }, 300);
    const waiting = sandbox.run({ echo: 1 }, 10_000);
    await expect(sandbox.run({ echo: 2 }, 10_000)).rejects.toThrow('busy');
    await expect(running).rejects.toThrow('timeout');
    await expect(waiting).resolves.toBe(1);
  });

  it("a caller's flood waits in its own line and is refused past it; another caller runs meanwhile", async () => {
    const { sandbox } = make(8, {}, { workers: 2, maxQueuedPerCaller: 1 });
    // Both workers loaded: the test compares turns, not start-up times.
    await Promise.all([sandbox.run({ echo: 1 }, 10_000, 'a'), sandbox.run({ echo: 2 }, 10_000, 'b')]);
    const ended: string[] = [];
    const flood = Array.from({ length: 6 }, () => sandbox.run({ spinMs: 60_000 }, 1500, 'flooder'));
    const outcomes = Promise.allSettled(flood);
    flood.forEach((task, i) => void named(`flood ${i}`, task, ended));
    await expect(sandbox.run({ echo: 'mine' }, 10_000, 'other')).resolves.toBe('mine');
    ended.push('other');
    const settled = await outcomes;
    // One ran, one waited (its line holds one), four were refused at once.
    expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason.message) : 'ok'))).toEqual([
      'timeout: 1500',
      'timeout: 1500',
      'busy',
      'busy',
      'busy',
      'busy',
    ]);
    expect(ended.slice(0, 5).sort()).toEqual(['flood 2', 'flood 3', 'flood 4', 'flood 5', 'other'].sort());
  });

  it("callers take turns: the next task is the next caller's, not the flooder's next", async () => {
    const { sandbox } = make(8, {}, { workers: 1 });
    await sandbox.run({ echo: 'warm' }, 10_000, 'a');
    const order: string[] = [];
    const tasks = [
      named('a1', sandbox.run({ echo: 1 }, 10_000, 'a'), order),
      named('a2', sandbox.run({ echo: 2 }, 10_000, 'a'), order),
      named('a3', sandbox.run({ echo: 3 }, 10_000, 'a'), order),
      named('b1', sandbox.run({ echo: 4 }, 10_000, 'b'), order),
      named('c1', sandbox.run({ echo: 5 }, 10_000, 'c'), order),
    ];
    await Promise.all(tasks);
    expect(order).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
  });

  it("a queue full of other callers' tasks refuses a new caller too", async () => {
    const { sandbox } = make(2, {}, { workers: 1, maxQueuedPerCaller: 1 });
    await sandbox.run({ echo: 'warm' }, 10_000, 'a');
    const running = sandbox.run({ spinMs: 60_000 }, 500, 'a');
    const waiting = [sandbox.run({ echo: 1 }, 10_000, 'b'), sandbox.run({ echo: 2 }, 10_000, 'c')];
    await expect(sandbox.run({ echo: 3 }, 10_000, 'd')).rejects.toThrow('busy');
    await expect(running).rejects.toThrow('timeout');
    await expect(Promise.all(waiting)).resolves.toEqual([1, 2]);
  });

  it('a worker that exits, or runs out of memory, fails its task and is replaced', async () => {
    const { sandbox, started } = make(8, { resourceLimits: { maxOldGenerationSizeMb: 32 } });
    await expect(sandbox.run({ exit: 3 }, 10_000)).rejects.toThrow('exited');
    await expect(sandbox.run({ hog: true }, 20_000)).rejects.toThrow('crashed: ERR_WORKER_OUT_OF_MEMORY');
    await expect(sandbox.run({ echo: 'still here' }, 10_000)).resolves.toBe('still here');
    expect(started()).toBe(3);
  });

  it('close refuses the running task and those waiting; the next task starts a new worker', async () => {
    const { sandbox, started } = make();
    await sandbox.run({ echo: 'warm' }, 10_000);
    const running = sandbox.run({ spinMs: 60_000 }, 60_000);
    const waiting = sandbox.run({ echo: 'never' }, 10_000);
    await sandbox.close();
    await expect(running).rejects.toThrow('stopped');
    await expect(waiting).rejects.toThrow('stopped');
    await expect(sandbox.run({ echo: 'again' }, 10_000)).resolves.toBe('again');
    expect(started()).toBe(2);
  });

  it('an idle sandbox does not keep its process alive', () => {
    // A process that runs one task and never closes its sandbox still exits by itself.
    const program = `
      const { readFileSync } = require('node:fs');
      const { transformSync } = require('@swc/core');
      require.extensions['.ts'] = (module, filename) => {
        const options = { filename, jsc: { parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };
        module._compile(transformSync(readFileSync(filename, 'utf8'), options).code, filename);
      };
      const { WorkerSandbox, workerFromFile } = require(${JSON.stringify(join(__dirname, 'worker-sandbox.ts'))});
      const sandbox = new WorkerSandbox({
        start: () => workerFromFile(${JSON.stringify(WORKER_FILE)}),
        maxQueue: 1,
        failures: {},
        error: (message) => new Error(message),
      });
      sandbox.run({ echo: 'done' }, 10000).then((answer) => console.log(answer));
    `;
    const child = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('done');
    expect(child.status).toBe(0);
  });
});
