import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config/config.loader';
import { loadEvaluationFile } from '../../src/jobs/evaluation/evaluation-file.loader';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { CLI, ROOT } from '../utils/cli';
import { docPages, snippetsOf, type Snippet } from '../utils/doc-snippets';
import { outputProblems, segmentsOf, type ServeCommand } from '../utils/shell-snippet';
import { SnippetWorkspace, splitWords } from '../utils/snippet-workspace';

/**
 * Every fenced code block of README.md and docs/*.md is run or checked here, so what the docs show
 * cannot drift from what the server does.
 *
 * How a block is handled, by its language:
 * - `bash`: run with bash in a fresh folder that looks like a clone of this repository (links to
 *   dist/, config/, examples/, node_modules/), against a real `interlude serve` (dist/cli.js) on an
 *   ephemeral port: every `localhost:8000` is rewritten to it. `curl` is a shim that fails the block on
 *   an HTTP error; `npm install X` only checks that X is installed here. A command followed by its
 *   output in comments (`# {"status":"healthy"}`, `# 202 {…}`, `# event: interaction_required`) is
 *   checked against it: the status code, every JSON key, the `status`/`type`/`object`/`input_type`
 *   values, SSE lines and response headers. No snippet reaches a real model: every `*_BASE_URL`
 *   points at test/utils/fake-llm.ts.
 * - Which server: a `serve` line in a block (`[ENV=… ]node dist/cli.js serve ARGS`, or `npm start`) is
 *   not run by the script: the test starts that command itself (one server per distinct command,
 *   shared by every block that names it) and it stays the page's current server for the blocks below
 *   it, as for a reader who keeps it running. A page starts with `npm start` (config/default.yml).
 *   `<!-- snippet: config=FILE -->` before a block runs it against `serve --config FILE` instead.
 * - `js`: run with node as an ES module against the page's current server, unless it is marked
 *   `<!-- snippet: file=NAME -->`: then it is written to NAME for a later bash block of the page.
 * - `yaml`: a whole config (it has `workflow:`) is validated as `interlude validate` does; a fragment
 *   is merged into config/default.yml first; `<!-- snippet: evaluation-file=DIR -->` loads it as an
 *   evaluation file beside DIR's dataset and workflow files. `${VAR}` without a default gets a sample.
 * - `json`: must parse; `<!-- snippet: response=/path -->` compares it with what GET /path answers,
 *   key by key (values written with `…` are not compared).
 * - `ts`: only as `<!-- snippet: excerpt=FILE[,FILE] -->`: each of its lines is a line of those files
 *   (a `// FILE` line may say which).
 * - A block that cannot run here says why: `<!-- snippet: not run (needs Docker) -->`. Any other block
 *   fails, and the blocks not run are listed (and capped) in the last test.
 */

/** A block's own time limit, and a page's (its blocks run in a row). */
const BLOCK_MS = 40_000;
const PAGE_MS = 180_000;
/** Raise it only with a reason in the block's marker: every block that can run here should. */
const MAX_NOT_RUN = 7;
const NPM_START: ServeCommand = { env: {}, args: '' };
/** Values for `${VAR}` without a default in YAML blocks. */
const SAMPLE_ENV: Record<string, string> = {
  DATABASE_URL: 'postgres://interlude@127.0.0.1:5432/interlude',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

const pages = docPages(ROOT);
const snippets = pages.flatMap((page) => snippetsOf(ROOT, page));
const run = snippets.filter((s) => s.marker.notRun === undefined);
let workspace: SnippetWorkspace;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first.`);
  workspace = await SnippetWorkspace.create();
  for (const command of serversNeeded()) {
    // Servers of configs a snippet writes first start when that snippet gets there.
    const files = splitWords(command.args).filter((arg) => arg.endsWith('.yml'));
    if (files.every((file) => existsSync(resolve(ROOT, file))))
      void workspace.port(command).catch(() => undefined);
  }
});

afterAll(async () => {
  await workspace?.close();
});

const atConfig = (file: string): ServeCommand => ({ env: {}, args: `--config ${file}` });
const usesServer = (text: string) => text.includes('localhost:8000');
const toPort = (text: string, port: number) => text.replaceAll('localhost:8000', `localhost:${port}`);
const where = (s: Snippet) => `${s.page}:${s.line}`;

/** Every server the pages start, in the order they need them (started ahead, a few at a time). */
function serversNeeded(): ServeCommand[] {
  const needed = new Map<string, ServeCommand>();
  const need = (command: ServeCommand) => needed.set(JSON.stringify(command), command);
  for (const page of pages) {
    let current = NPM_START;
    for (const s of run.filter((x) => x.page === page)) {
      const target = () => (s.marker.config ? atConfig(s.marker.config) : current);
      if (s.lang === 'bash') {
        for (const segment of segmentsOf(s.code)) {
          if (segment.kind === 'serve') need((current = segment.serve));
          else if (usesServer(segment.text)) need(target());
        }
      } else if ((s.lang === 'js' && !s.marker.file) || s.marker.response) need(target());
    }
  }
  return [...needed.values()];
}

interface PageState {
  server: ServeCommand;
  /** `file=` blocks so far: written (for the server it runs against) before each script that names them. */
  files: { name: string; text: string }[];
}

async function runBash(s: Snippet, state: PageState): Promise<void> {
  for (const segment of segmentsOf(s.code)) {
    if (segment.kind === 'serve') {
      state.server = segment.serve;
      await workspace.port(segment.serve); // a serve line must start, whether or not a command uses it
      continue;
    }
    const target = s.marker.config ? atConfig(s.marker.config) : state.server;
    const files = state.files.filter((f) => segment.text.includes(f.name));
    const needs = usesServer(segment.text) || files.some((f) => usesServer(f.text));
    const port = needs ? await workspace.port(target) : 8000;
    for (const file of files) workspace.writeFile(file.name, toPort(file.text, port));
    const result = await workspace.runBash(toPort(segment.text, port), BLOCK_MS - 5_000);
    const shown = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect({ where: where(s), exit: result.code }).toEqual({
      where: where(s),
      exit: 0,
      ...(result.code ? { shown } : {}),
    });
    for (const check of segment.checks) {
      const actual = result.outputs.get(check.index) ?? '';
      expect({ command: check.command, problems: outputProblems(check.expected, actual) }).toEqual({
        command: check.command,
        problems: [],
      });
    }
  }
}

async function runJs(s: Snippet, state: PageState): Promise<void> {
  const port = await workspace.port(s.marker.config ? atConfig(s.marker.config) : state.server);
  const name = `snippet-${s.line}.mjs`;
  workspace.writeFile(name, toPort(s.code, port));
  const result = await workspace.runBash(`node ${name}`, BLOCK_MS - 5_000);
  expect({ where: where(s), exit: result.code, stderr: result.stderr }).toMatchObject({ exit: 0 });
}

/** Where `expected` (a JSON value as a page shows it) differs from `actual`. */
function shapeProblems(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeof expected === 'string' && expected.includes('…')) return [];
  if (expected === null || typeof expected !== 'object') {
    return expected === actual
      ? []
      : [`${path}: ${JSON.stringify(actual)}, the page shows ${JSON.stringify(expected)}`];
  }
  if (actual === null || typeof actual !== 'object') return [`${path}: not an object or array`];
  return Object.entries(expected).flatMap(([key, value]) =>
    key in actual
      ? shapeProblems(value, (actual as Record<string, unknown>)[key], `${path}.${key}`)
      : [`${path}.${key}: missing`],
  );
}

async function checkJson(s: Snippet, state: PageState): Promise<void> {
  const expected: unknown = JSON.parse(s.code);
  if (!s.marker.response) return;
  const port = await workspace.port(s.marker.config ? atConfig(s.marker.config) : state.server);
  const answer = await fetch(`http://localhost:${port}${s.marker.response}`);
  expect(answer.status).toBe(200);
  expect(shapeProblems(expected, await answer.json())).toEqual([]);
}

function sampleEnv(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [, name] of text.matchAll(/\$\{([A-Za-z_]\w*)\}/g))
    env[name] = SAMPLE_ENV[name] ?? 'sample-value';
  return env;
}

/** Deep merge: the fragment's keys over the base config's. */
function merged(base: unknown, fragment: unknown): unknown {
  if (!isMap(base) || !isMap(fragment)) return fragment;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(fragment)) out[key] = merged(base[key], value);
  return out;
}
const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

async function checkYaml(s: Snippet): Promise<void> {
  const env = sampleEnv(s.code);
  const registry = builtinRegistry();
  const problems = (err: unknown) => (err instanceof ConfigError ? err.message : String(err));
  if (s.marker.evaluationFile) {
    const dir = mkdtempSync(join(workspace.dir, 'evaluation-'));
    const source = resolve(ROOT, s.marker.evaluationFile);
    for (const name of readdirSync(source)) copyFileSync(join(source, name), join(dir, name));
    writeFileSync(join(dir, 'snippet.yml'), s.code);
    const served = parseConfig(
      readFileSync(resolve(ROOT, 'config/default.yml'), 'utf8'),
      'default.yml',
      registry,
      env,
    );
    await expect(
      loadEvaluationFile(join(dir, 'snippet.yml'), served, registry).catch(problems),
    ).resolves.not.toEqual(expect.any(String));
    return;
  }
  const fragment: unknown = parse(s.code);
  const whole = isMap(fragment) && 'workflow' in fragment;
  const base: unknown = parse(readFileSync(resolve(ROOT, 'config/default.yml'), 'utf8'));
  const text = whole ? s.code : stringify(merged(base, fragment));
  let error = '';
  try {
    parseConfig(text, where(s), registry, { ...env, ...sampleEnv(text) });
  } catch (err) {
    error = problems(err);
  }
  expect(error).toBe('');
}

/** A file a later block uses: kept for it, and (JavaScript) checked for syntax now. */
async function keepFile(s: Snippet, state: PageState): Promise<void> {
  state.files.push({ name: s.marker.file!, text: s.code });
  if (!/\.m?js$/.test(s.marker.file!)) return;
  workspace.writeFile(s.marker.file!, s.code);
  const result = await workspace.runBash(`node --check ${s.marker.file}`, BLOCK_MS - 5_000);
  expect({ where: where(s), exit: result.code, stderr: result.stderr }).toMatchObject({ exit: 0 });
}

function checkExcerpt(s: Snippet): void {
  const lines = new Set(
    s.marker.excerpt!.flatMap((file) =>
      readFileSync(resolve(ROOT, file), 'utf8')
        .split('\n')
        .map((l) => l.trim()),
    ),
  );
  const missing = s.code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !s.marker.excerpt!.some((file) => l === `// ${file}`) && !lines.has(l));
  expect({ where: where(s), missing }).toEqual({ where: where(s), missing: [] });
}

async function runBlock(s: Snippet, state: PageState): Promise<void> {
  if (s.marker.file) await keepFile(s, state);
  else if (s.lang === 'bash') await runBash(s, state);
  else if (s.lang === 'js') await runJs(s, state);
  else if (s.lang === 'json') await checkJson(s, state);
  else if (s.lang === 'yaml') await checkYaml(s);
  else if (s.marker.excerpt) checkExcerpt(s);
  else throw new Error(`the snippet test cannot run a "${s.lang}" block: make it runnable or mark it`);
}

// Pages run at once (their blocks in order): most of the time is the demo workflows' own delays.
describe('every code block of the docs runs as written', () => {
  it.concurrent.each(pages)(
    '%s',
    async (page) => {
      const state: PageState = { server: NPM_START, files: [] };
      for (const s of run.filter((x) => x.page === page)) {
        try {
          await runBlock(s, state);
        } catch (err) {
          if (err instanceof Error) err.message = `${where(s)} (${s.lang || 'plain'} block): ${err.message}`;
          throw err;
        }
      }
    },
    PAGE_MS,
  );
});

describe('blocks that are not run here', () => {
  it(`say why, and stay few (at most ${MAX_NOT_RUN})`, () => {
    const notRun = snippets.filter((s) => s.marker.notRun !== undefined);
    const list = notRun.map((s) => `  ${where(s)} ${s.lang}: ${s.marker.notRun}`).join('\n');
    process.stdout.write(`${notRun.length} of ${snippets.length} doc code blocks are not run:\n${list}\n`);
    expect(notRun.every((s) => s.marker.notRun!.trim().length > 0)).toBe(true);
    expect(notRun.length).toBeLessThanOrEqual(MAX_NOT_RUN);
  });
});
