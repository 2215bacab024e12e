import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';

// What a newcomer's `npm install` does to a clean clone: it must leave the tree as committed and
// warn about no engine on the Node versions the project declares.
const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('npm install on a clean clone', () => {
  it('the lock file is as npm writes it: resolving it again changes no byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-lock-'));
    try {
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
      copyFileSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
      await promisify(execFile)(
        'npm',
        ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'],
        { cwd: dir, timeout: 120_000 },
      );
      const committed = readFileSync(join(root, 'package-lock.json'), 'utf8');
      const rewritten = readFileSync(join(dir, 'package-lock.json'), 'utf8');
      // Named first, so a failure says which packages another platform's install would add.
      const packagesOf = (text: string) => text.split('\n').filter((l) => /^ {4}"node_modules\//.test(l));
      const known = new Set(packagesOf(committed));
      expect(packagesOf(rewritten).filter((line) => !known.has(line))).toEqual([]);
      expect(rewritten).toBe(committed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('no installed package declares a Node engine that excludes the oldest Node we promise', () => {
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    expect(oldest).toBe('20.19.0');
    const excluding = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, pkg]) => ({ path, node: Array.isArray(pkg.engines) ? undefined : pkg.engines?.node }))
      .filter(({ node }) => node && !semver.satisfies(oldest, node))
      .map(({ path, node }) => `${path.replace(/^.*node_modules\//, '')} needs node ${node}`);
    expect(excluding).toEqual([]);
  });
});
