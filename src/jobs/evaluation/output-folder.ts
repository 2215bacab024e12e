import { createHash } from 'node:crypto';
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
 * The folder of one owner's jobs under the output root. Job ids are unique per owner only, so each owner
 * has a folder of their own; it is named by a hash of the user id, which any user id (slashes, dots,
 * an email) turns into one safe path component and which does not spell the id out on disk. Anonymous
 * callers share one owner in the job store, and one folder here.
 */
export function ownerFolder(userId: string | null): string {
  if (userId === null) return 'anonymous';
  return `user-${createHash('sha256').update(`interlude-eval-owner:${userId}`).digest('hex').slice(0, 32)}`;
}

/** A job's folder, absolute, and as answers show it (relative to the output root). */
export interface JobFolder {
  absolute: string;
  relative: string;
}

/** A folder that must be a real folder: one that is a symbolic link or a file is refused, not followed. */
async function ensureFolder(path: string, what: string, cleanup: boolean): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isSymbolicLink() || (existing && !existing.isDirectory())) {
    throw new OutputFolderError(`the output folder for ${what} exists and is not a folder`);
  }
  if (existing && cleanup) await rm(path, { recursive: true, force: true });
  await mkdir(path, { recursive: true });
}

/**
 * Makes `<root>/<owner folder>/<jobId>/` (emptied first when `cleanup`). The job id is checked again
 * here (the caller checked it too): one path component, so nothing is written outside the owner's folder.
 */
export async function prepareJobFolder(
  root: string,
  userId: string | null,
  jobId: string,
  cleanup: boolean,
): Promise<JobFolder> {
  if (!JOB_ID.test(jobId)) {
    throw new OutputFolderError(`job id "${jobId.slice(0, 140)}" is not a single path component`);
  }
  await mkdir(resolve(root), { recursive: true });
  const realRoot = await realpath(resolve(root));
  const owner = ownerFolder(userId);
  await ensureFolder(join(realRoot, owner), 'your jobs', false);
  await ensureFolder(join(realRoot, owner, jobId), `job ${jobId}`, cleanup);
  return { absolute: join(realRoot, owner, jobId), relative: join(owner, jobId) };
}

/** Writes `name` (a plain file name) in the job folder as indented JSON. */
export async function writeJsonFile(folder: string, name: string, value: unknown): Promise<void> {
  if (name.includes('/') || name.includes('\\') || name.startsWith('.')) {
    throw new OutputFolderError(`"${name}" is not a plain file name`);
  }
  await writeFile(join(folder, name), `${JSON.stringify(value, null, 2)}\n`, { flag: 'w' });
}
