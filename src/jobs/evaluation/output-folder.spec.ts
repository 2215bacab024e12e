import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aFolder } from '../../../test/utils/eval-runner';
import { prepareJobFolder, writeJsonFile } from './output-folder';

describe("a job's output folder", () => {
  it('is made under the root (the root too, if missing) and emptied first when cleanup is on', async () => {
    const root = join(aFolder(), 'out');
    const folder = await prepareJobFolder(root, 'job-1', true);
    expect(folder).toBe(join(root, 'job-1'));
    writeFileSync(join(folder, 'old.json'), '{}');
    await prepareJobFolder(root, 'job-1', true);
    expect(existsSync(join(folder, 'old.json'))).toBe(false);
    writeFileSync(join(folder, 'kept.json'), '{}');
    await prepareJobFolder(root, 'job-1', false);
    expect(existsSync(join(folder, 'kept.json'))).toBe(true);
  });

  it.each(['..', '../x', 'a/b', 'a\\b', '', '.x', `${'a'.repeat(129)}`])(
    'refuses the job id %p',
    async (id) => {
      await expect(prepareJobFolder(aFolder(), id, true)).rejects.toThrow('is not a single path component');
    },
  );

  it('refuses a job folder that is a symbolic link, and leaves its target alone', async () => {
    const root = aFolder();
    const elsewhere = aFolder();
    writeFileSync(join(elsewhere, 'precious.txt'), 'keep me');
    symlinkSync(elsewhere, join(root, 'job-2'));
    await expect(prepareJobFolder(root, 'job-2', true)).rejects.toThrow('exists and is not a folder');
    expect(readFileSync(join(elsewhere, 'precious.txt'), 'utf8')).toBe('keep me');
  });

  it('writes plain file names only', async () => {
    const folder = aFolder();
    mkdirSync(join(folder, 'sub'));
    await writeJsonFile(folder, 'exact_output.json', { average_score: 1 });
    expect(JSON.parse(readFileSync(join(folder, 'exact_output.json'), 'utf8'))).toEqual({ average_score: 1 });
    await expect(writeJsonFile(folder, '../x.json', {})).rejects.toThrow('not a plain file name');
  });
});
