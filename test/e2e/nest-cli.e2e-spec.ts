import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// A Nest engineer's own tools work on this tree: `nest build` (nest-cli.json at the top level) compiles
// src/ with tsconfig.build.json, and what it writes runs. Built into a temporary directory, so the
// dist/ of `npm run build` (bundled by esbuild) is left alone.
const root = join(__dirname, '..', '..');
const run = promisify(execFile);

describe('nest build', () => {
  it('compiles the tree into a runnable CLI, the entry nest-cli.json names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-nest-build-'));
    try {
      const out = join(dir, 'out');
      const tsconfig = join(dir, 'tsconfig.json');
      writeFileSync(
        tsconfig,
        JSON.stringify({ extends: join(root, 'tsconfig.build.json'), compilerOptions: { outDir: out } }),
      );
      await run(join(root, 'node_modules', '.bin', 'nest'), ['build', '--path', tsconfig], {
        cwd: root,
        timeout: 170_000,
      });
      expect(existsSync(join(out, 'cli.js'))).toBe(true);
      // It loads every module (decorators, their metadata) and answers as the CLI does.
      const help = await run(process.execPath, [join(out, 'cli.js'), '--help'], {
        cwd: root,
        env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
        timeout: 60_000,
      });
      expect(help.stdout).toMatch(/^ {2}serve\b/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
