import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const held = new Set<string>();
process.once('exit', () => {
  for (const file of held) unlinkQuietly(file);
});

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Whether the process that wrote `file` is gone (its lock is stale). */
function ownerGone(file: string): boolean {
  try {
    process.kill(Number(readFileSync(file, 'utf8')), 0);
    return false;
  } catch (err) {
    return (
      (err as NodeJS.ErrnoException).code === 'ESRCH' || (err as NodeJS.ErrnoException).code === 'ENOENT'
    );
  }
}

/**
 * Waits for, then takes, a lock shared by every test process on this machine (every Jest worker of every
 * run), and returns its release. The suites that open the most PostgreSQL connections (three server
 * processes with their pools, or BullMQ's) hold `postgres-heavy`: two of them at once, from one run's
 * two workers or from two runs, passed PostgreSQL's default max_connections (100) ("sorry, too many
 * clients already"). A lock whose process died is taken over.
 */
export async function machineLock(name: string): Promise<() => void> {
  const file = join(tmpdir(), `interlude-test-${name}.lock`);
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(file);
      return () => {
        held.delete(file);
        unlinkQuietly(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (ownerGone(file)) unlinkQuietly(file);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** For a describe block: holds `name` from before its first test to after its last. */
export function holdMachineLock(name: string): void {
  let release: (() => void) | undefined;
  // Another run's suite may hold it for minutes.
  beforeAll(async () => (release = await machineLock(name)), 15 * 60_000);
  afterAll(() => release?.());
}
