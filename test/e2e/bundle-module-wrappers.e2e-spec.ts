import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEAST_UPPER_BOUND, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';

// scripts/build-server.js rewrites the bundle's module wrappers to function expressions so V8 preparses
// them at start-up (scripts/module-wrappers.js): the bundle must run as before and its source map must
// still lead to the right line and column of the source.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const esbuild = require('esbuild') as typeof import('esbuild');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { preparsedModuleWrappers } = require('../../scripts/module-wrappers') as {
  preparsedModuleWrappers: (file: string) => { rewritten: number; kept: number };
};

/** The original [line, column] (0-based) of the first mapping at or after a generated line and column. */
function originalAt(mapFile: string, line: number, column: number): [number, number] | undefined {
  const map = new TraceMap(readFileSync(mapFile, 'utf8'));
  const found = originalPositionFor(map, { line: line + 1, column, bias: LEAST_UPPER_BOUND });
  return found.line === null ? undefined : [found.line - 1, found.column];
}

/** Line and column (0-based) of `needle` in `text`. */
function position(text: string, needle: string): [number, number] {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${needle} not found`);
  const before = text.slice(0, at).split('\n');
  return [before.length - 1, before[before.length - 1].length];
}

describe('the bundle with preparsed module wrappers', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlude-wrappers-'));
    // 25 CommonJS modules (a helper counts as esbuild's wrapper once it wraps 20) and one that reads
    // `arguments` at its top level (the loader's module wrapper's), which must stay an arrow function.
    for (let i = 0; i < 25; i++) {
      writeFileSync(
        join(dir, `m${i}.js`),
        `exports.value = ${i};\nexports.where = () => new Error('m${i}');\n`,
      );
    }
    writeFileSync(join(dir, 'args.js'), 'exports.count = arguments.length;\n');
    const requires = Array.from({ length: 25 }, (_, i) => `require('./m${i}.js')`).join(', ');
    writeFileSync(
      join(dir, 'entry.js'),
      `const all = [${requires}];\nmodule.exports = { all, args: require('./args.js').count };\n`,
    );
    esbuild.buildSync({
      entryPoints: [join(dir, 'entry.js')],
      outfile: join(dir, 'out.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      minify: true,
      sourcemap: 'linked',
      logLevel: 'silent',
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rewrites every wrapper but the one that reads `arguments`, and the bundle still runs', () => {
    const before = readFileSync(join(dir, 'out.js'), 'utf8');
    const result = preparsedModuleWrappers(join(dir, 'out.js'));
    const after = readFileSync(join(dir, 'out.js'), 'utf8');

    expect(result).toEqual({ rewritten: 25, kept: 1 });
    expect(after.length).toBeGreaterThan(before.length);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const bundle = require(join(dir, 'out.js')) as { all: { value: number }[]; args: number };
    expect(bundle.all.map((m) => m.value)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    // As a function expression it would read its own two (exports, module).
    expect(bundle.args).toBeGreaterThanOrEqual(5);
  });

  it('the source map still leads from the bundle to each module line', () => {
    const text = readFileSync(join(dir, 'out.js'), 'utf8');
    for (const i of [0, 12, 24]) {
      const [line, column] = position(text, `"m${i}"`);
      // `new Error('m${i}')` is on line 2 (index 1) of m${i}.js, the string at column 32.
      expect(originalAt(join(dir, 'out.js.map'), line, column)).toEqual([1, 32]);
    }
  });
});
