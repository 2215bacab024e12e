import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aFolder } from '../../../test/utils/eval-runner';
import { ownerFolder, prepareJobFolder, writeJsonFile } from './output-folder';

describe("a job's output folder", () => {
  it("is made under the owner's folder in the root (both too, if missing) and emptied first when cleanup is on", async () => {
    const root = join(aFolder(), 'out');
    const { absolute: folder, relative } = await prepareJobFolder(root, 'alice', 'job-1', true);
    expect(relative).toBe(join(ownerFolder('alice'), 'job-1'));
    expect(folder).toBe(join(root, relative));
    writeFileSync(join(folder, 'old.json'), '{}');
    await prepareJobFolder(root, 'alice', 'job-1', true);
    expect(existsSync(join(folder, 'old.json'))).toBe(false);
    writeFileSync(join(folder, 'kept.json'), '{}');
    await prepareJobFolder(root, 'alice', 'job-1', false);
    expect(existsSync(join(folder, 'kept.json'))).toBe(true);
  });

  it("another owner's job of the same id has a folder of its own, and leaves the first one's files", async () => {
    const root = aFolder();
    const alice = await prepareJobFolder(root, 'alice', 'ev1', true);
    writeFileSync(join(alice.absolute, 'exact_output.json'), '{"alice": true}');
    const bob = await prepareJobFolder(root, 'bob', 'ev1', true);
    expect(bob.absolute).not.toBe(alice.absolute);
    expect(readFileSync(join(alice.absolute, 'exact_output.json'), 'utf8')).toBe('{"alice": true}');
  });

  it.each(['../../etc', '/', '..', 'a/../../b', 'x\u0000y', 'évé@example.com'])(
    'the owner folder of user id %p is one safe path component',
    (userId) => {
      expect(ownerFolder(userId)).toMatch(/^user-[0-9a-f]{32}$/);
    },
  );

  it('anonymous callers share one folder; distinct ids get distinct folders', () => {
    expect(ownerFolder(null)).toBe('anonymous');
    expect(ownerFolder('anonymous')).not.toBe('anonymous');
    expect(ownerFolder('alice')).not.toBe(ownerFolder('bob'));
  });

  it.each(['..', '../x', 'a/b', 'a\\b', '', '.x', `${'a'.repeat(129)}`])(
    'refuses the job id %p',
    async (id) => {
      await expect(prepareJobFolder(aFolder(), 'alice', id, true)).rejects.toThrow(
        'is not a single path component',
      );
    },
  );

  it('refuses a job folder that is a symbolic link, and leaves its target alone', async () => {
    const root = aFolder();
    const elsewhere = aFolder();
    writeFileSync(join(elsewhere, 'precious.txt'), 'keep me');
    mkdirSync(join(root, ownerFolder('alice')));
    symlinkSync(elsewhere, join(root, ownerFolder('alice'), 'job-2'));
    await expect(prepareJobFolder(root, 'alice', 'job-2', true)).rejects.toThrow(
      'exists and is not a folder',
    );
    symlinkSync(elsewhere, join(root, ownerFolder('bob')));
    await expect(prepareJobFolder(root, 'bob', 'job-2', true)).rejects.toThrow('exists and is not a folder');
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
