#!/usr/bin/env node
// Bundles the compiled server (tsc's dist/, which keeps the decorator metadata) into one file,
// dist/cli.js, so a start loads one script instead of ~1,700 modules through Node's CommonJS loader
// (most of a start's time went to resolving and reading them). What stays outside the bundle:
// - packages loaded only when a config or a face's first request uses them (kept lazy: bundling would
//   parse them at every start, and the more a start parses, the more freed memory the process keeps:
//   the MCP SDK and zod in the bundle, though never run at start, cost 24 MiB of idle RSS);
// - native addons and packages that locate files of their own at run time;
// - optional peers that Nest and its companions probe for with a `require` and do without.
// The other files under dist/ stay as tsc wrote them (the calculator's worker thread, tools that import
// dist/main.js); a module of ours that names its own location gets it rewritten to where tsc put it.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');
const { preparsedModuleWrappers } = require('./module-wrappers');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

/** Required lazily by our code (the config or a first request decides) or native: loaded from node_modules when used. */
const LAZY_OR_NATIVE = [
  'pg',
  'pg-native',
  'better-sqlite3',
  'ioredis',
  'bullmq',
  'jose',
  '@modelcontextprotocol/sdk',
  // body-parser's decoder: nearly all of it is charset tables, which it loads at the first body it reads.
  'iconv-lite',
  'openai',
  'ajv',
  'ajv-formats',
  're2js',
  'mathjs',
  'pino-pretty',
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-undici',
  '@swc/core',
];

/** Optional peers that Nest, class-transformer/validator and Swagger try to load and do without. */
const OPTIONAL_PEERS = [
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/platform-socket.io',
  '@nestjs/websockets/socket-module',
  '@nestjs/platform-fastify',
  '@fastify/static',
  '@grpc/*',
  '@apollo/*',
  'class-transformer/storage',
  'swagger-ui-dist',
  'swagger-ui-dist/*',
];

/** Rewrites `__dirname`/`__filename` in our compiled modules to the directory tsc put them in. */
const ownLocation = (DIST) => ({
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + path.sep)) return undefined;
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const rel = (p) => JSON.stringify(path.relative(DIST, p).split(path.sep).join('/'));
      const contents = text
        .replace(/\b__dirname\b/g, `require('node:path').join(__dirname, ${rel(path.dirname(args.path))})`)
        .replace(/\b__filename\b/g, `require('node:path').join(__dirname, ${rel(args.path)})`);
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
});

/**
 * ESM packages that `require` through `createRequire(import.meta.url)` (Swagger's UI assets, mapped-types'
 * optional class-validator/class-transformer): their calls go through the bundle's own `require`, so a
 * package inside the bundle is not loaded a second time from node_modules with separate metadata.
 */
const bundledRequire = {
  name: 'bundled-require',
  setup(build) {
    build.onLoad({ filter: /\.m?js$/ }, async (args) => {
      if (!args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, 'utf8');
      const pattern = /^const require = createRequire\(import\.meta\.url\);$/m;
      if (!pattern.test(text)) return undefined;
      return { contents: text.replace(pattern, ''), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * class-validator imports libphonenumber-js (its largest part: every country's phone metadata) for
 * `@IsPhoneNumber`, which no DTO of ours uses: it loads from node_modules at the first phone check.
 */
const lazyPhoneNumbers = {
  name: 'lazy-phone-numbers',
  setup(build) {
    build.onResolve({ filter: /^libphonenumber-js\/max$/ }, (args) =>
      args.namespace === 'lazy-phone-numbers'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'lazy-phone-numbers' },
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-phone-numbers' }, () => ({
      contents: `let loaded;
const load = () => (loaded ??= require('libphonenumber-js/max'));
module.exports = { parsePhoneNumber: (...args) => load().parsePhoneNumber(...args) };`,
      loader: 'js',
    }));
  },
};

const MARK = '// interlude: bundled server';

async function buildServer({ entry = path.join(DIST, 'cli.js'), outfile = entry, minify = true } = {}) {
  // The entry is tsc's dist/cli.js, which this replaces: bundling the bundle again would be wrong.
  if (fs.readFileSync(entry, 'utf8').includes(MARK)) {
    throw new Error(`${path.relative(ROOT, entry)} is already the bundle: run tsc first (npm run build)`);
  }
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The input's source maps chain through, so stack traces (with --enable-source-maps) name src/*.ts.
    sourcemap: 'linked',
    sourcesContent: false,
    // Class and function names matter at run time (Nest providers, error names): keepNames preserves them.
    // Minified (names kept): 7.5 MiB less idle RSS than the same bundle unminified (5 alternating starts).
    minify,
    keepNames: true,
    legalComments: 'linked',
    external: [...LAZY_OR_NATIVE, ...OPTIONAL_PEERS],
    plugins: [ownLocation(path.dirname(entry)), bundledRequire, lazyPhoneNumbers],
    // Any other `import.meta.url` (ESM packages locating themselves) reads as the bundle's own URL.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: `${MARK}\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;` },
    metafile: true,
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
  });
  const wrappers = preparsedModuleWrappers(outfile);
  if (wrappers.rewritten === 0) throw new Error(`${outfile}: no module wrapper found to rewrite`);
  asciiOnly(outfile);
  return result;
}

/**
 * esbuild leaves non-ASCII characters in regular expressions and comments (validator's locale patterns);
 * one such character makes V8 hold the whole 7 MB source as a two-byte string (14 MB). As `\uXXXX`
 * escapes they mean the same in a regex (in a class, a range, with or without the `u` flag) and the source
 * stays one byte per character. Only lines holding such characters shift their columns in the source map.
 */
function asciiOnly(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (/\\[\u0080-\uffff]/.test(text)) throw new Error(`${file}: a non-ASCII character after a backslash`);
  const escaped = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  if (escaped !== text) fs.writeFileSync(file, escaped);
}

module.exports = { buildServer };

if (require.main === module) {
  buildServer()
    .then((result) => {
      if (process.argv.includes('--analyze')) console.log(esbuild.analyzeMetafileSync(result.metafile));
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
