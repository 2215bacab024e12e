import { lstat, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** A job id is one path component: it names the job's folder under the output root. */
export const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A job's output would leave the output root, or its folder cannot be made. */
export class OutputFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputFolderError';
  }
}

/**
 * Makes `<root>/<jobId>/` (emptied first when `cleanup`) and returns its path. The job id is checked
 * again here (the caller checked it too): one path component, so nothing is written outside the root.
 * A job folder that is a symbolic link is refused rather than followed.
 */
export async function prepareJobFolder(root: string, jobId: string, cleanup: boolean): Promise<string> {
  if (!JOB_ID.test(jobId)) {
    throw new OutputFolderError(`job id "${jobId.slice(0, 140)}" is not a single path component`);
  }
  await mkdir(resolve(root), { recursive: true });
  const realRoot = await realpath(resolve(root));
  const folder = join(realRoot, jobId);
  const existing = await lstat(folder).catch(() => undefined);
  if (existing?.isSymbolicLink() || (existing && !existing.isDirectory())) {
    throw new OutputFolderError(`the output folder for job ${jobId} exists and is not a folder`);
  }
  if (existing && cleanup) await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  return folder;
}

/** Writes `name` (a plain file name) in the job folder as indented JSON. */
export async function writeJsonFile(folder: string, name: string, value: unknown): Promise<void> {
  if (name.includes('/') || name.includes('\\') || name.startsWith('.')) {
    throw new OutputFolderError(`"${name}" is not a plain file name`);
  }
  await writeFile(join(folder, name), `${JSON.stringify(value, null, 2)}\n`, { flag: 'w' });
}
