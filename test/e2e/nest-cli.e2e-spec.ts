import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

// A Nest engineer's own tools work on this tree: `nest build` (nest-cli.json at the top level) compiles
// src/ with tsconfig.build.json, and what it writes runs. Built into a temporary directory under .tmp/
// (inside the tree, so the compiler finds @types and the output finds node_modules), so the dist/ of
// `npm run build` (bundled by esbuild) is left alone.
const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const nestCli = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8')) as {
  sourceRoot: string;
  entryFile: string;
};

describe('nest build', () => {
  it('compiles the tree into a runnable CLI, the entry nest-cli.json names', async () => {
    mkdirSync(join(root, '.tmp'), { recursive: true });
    const dir = mkdtempSync(join(root, '.tmp', 'nest-build-'));
    try {
      const out = join(dir, 'out');
      const tsconfig = join(dir, 'tsconfig.json');
      writeFileSync(
        tsconfig,
        JSON.stringify({ extends: join(root, 'tsconfig.build.json'), compilerOptions: { outDir: out } }),
      );
      // The CLI takes --path relative to the working directory.
      await run(join(root, 'node_modules', '.bin', 'nest'), ['build', '--path', relative(root, tsconfig)], {
        cwd: root,
        timeout: 170_000,
      });
      expect(nestCli.sourceRoot).toBe('src');
      const entry = join(out, `${nestCli.entryFile}.js`);
      expect(existsSync(entry)).toBe(true);
      // The entry (what `nest start` runs) loads every module, decorators and their metadata, and
      // answers as the `interlude` command does.
      const help = await run(process.execPath, [entry, '--help'], { timeout: 60_000 });
      expect(help.stdout).toMatch(/^ {2}serve\b/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
