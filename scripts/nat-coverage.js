#!/usr/bin/env node
// How many of NeMo Agent Toolkit's own example workflows Interlude loads unchanged (issue 27's measure).
// Run by hand against a NAT checkout (never committed here), after `npx tsc -p tsconfig.build.json`
// (the loader check) or `npm run build` (--serve):
//
//   node scripts/nat-coverage.js <nat-checkout> [--serve] [--mcp] [--list] [--blockers] [--only=<text>]
//   node scripts/nat-coverage.js <nat-checkout> --types   (rewrites src/config/nat-types.json)
//
// A workflow config is a YAML file under examples/ whose top level has `workflow:` or `base:`. Every
// `${VAR}` without a default gets a dummy value (a loopback URL for a name ending in _URL, _URI or
// _ENDPOINT), and so do the API keys components read from the environment rather than from a `${VAR}`
// (ENV_KEYS below: TAVILY_API_KEY, which NAT's and Interlude's tavily group require at start-up, and the
// LLM keys), unless set. Each config goes through Interlude's config loader
// (what `interlude validate` runs); --serve also starts `interlude serve` on the ones that load and waits
// up to 15 s for /health. Nothing else is stood in for: a config whose MCP server (a `stdio` Python
// command, a URL) is not there does not start, as it does not in NAT.
//
// --mcp first replaces each component whose _type Interlude lacks by one `mcp_client` group (the way
// across docs/from-nemo-agent-toolkit.md describes) and references to it by `<group>__<name>`, and lists
// 127.0.0.1 in the config's `general.outbound.allow_hosts`, as the guide tells a user with a local
// `nat mcp serve` to. The group's URL is a real MCP server this script runs (scripts/nat-mcp-standin.js,
// the SDK's McpServer over streamable HTTP on a free port), standing in for the user's `nat mcp serve`:
// it offers each moved function as a tool of that name. A moved function group is offered as one tool
// named as the group: which tools NAT would list for a Python group is not knowable without running it.
// The summary is "N of M start", then the failures grouped by their first reason.
/* global fetch */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const YAML = require('yaml');
const { startStandIn } = require('./nat-mcp-standin');
const { writeTypes } = require('./nat-types');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const HEALTH_WAIT_MS = 15_000;
// As long as a real key or token: NAT itself refuses an `api_key` provider's `raw_key` under 8 characters,
// so a short word would measure the dummy, not the config.
const DUMMY = 'dummy-value-0123456789';
// A variable named like a URL gets a URL: NAT too refuses `dummy` where a URL is due, so a plain word
// would measure the dummy, not the config. Port 9 (discard) on loopback: nothing is ever reached.
const DUMMY_URL = 'http://127.0.0.1:9/';
const URL_NAME = /(_|^)(URL|URI|ENDPOINT|BASE_URL|HOST_URL)$/;
const MCP_GROUP = 'python_tools';
/** API keys that components read from the environment (not from a `${VAR}`): a dummy each, unless set. */
const ENV_KEYS = ['TAVILY_API_KEY', 'NVIDIA_API_KEY', 'OPENAI_API_KEY'];

function usage(message) {
  process.stderr.write(
    `${message}\nusage: node scripts/nat-coverage.js <nat-checkout> [--serve] [--mcp] [--list] [--blockers] [--only=<text>]\n`,
  );
  process.exit(2);
}

function yamlFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

function topLevel(file) {
  try {
    const parsed = YAML.parse(fs.readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Every `${VAR}` (no default) in the examples gets a dummy value; set ones keep theirs. */
function dummyEnv(files) {
  const env = { ...process.env };
  for (const file of files) {
    for (const [, name, fallback] of fs
      .readFileSync(file, 'utf8')
      .matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g)) {
      if (fallback === undefined && !env[name]) env[name] = URL_NAME.test(name) ? DUMMY_URL : DUMMY;
    }
  }
  for (const name of ENV_KEYS) env[name] ||= DUMMY;
  return env;
}

/** A failure's kind, so that configs failing on the same thing count together (entry names removed). */
function reasonOf(problem) {
  const where = problem.path.split('.');
  const section = where[0];
  // `functions.<name>.field`, but `workflow.field` and `general.field`: entry names are left out.
  const first = [
    'functions',
    'function_groups',
    'llms',
    'embedders',
    'authentication',
    'memory',
    'retrievers',
  ].includes(section)
    ? 2
    : 1;
  const field =
    where.length > first
      ? `.${where
          .slice(first)
          .join('.')
          .replace(/\[\d+\]/g, '[]')}`
      : '';
  const message = problem.message
    .replace(/; (known types|functions|function_groups|llms): .*$/, '')
    .replace(/; Interlude runs TypeScript components.*$/, '');
  if (/should not exist|Extra inputs/.test(message)) return `${section}…${field}: ${message}`;
  return `${section}: ${message.replace(/no entry "[^"]+"/, 'no entry "…"')}`;
}

function loadWith(loader, registry, file, env) {
  try {
    const config = loader.loadConfig(file, registry, env);
    return { ok: true, warnings: config.warnings.length };
  } catch (err) {
    if (!(err instanceof loader.ConfigError))
      return { ok: false, reason: `crash: ${err.message}`, detail: err.message };
    return { ok: false, reason: reasonOf(err.problems[0]), all: [...new Set(err.problems.map(reasonOf))] };
  }
}

/**
 * --mcp: components of a type Interlude lacks move behind one mcp_client group, whose URL is the
 * stand-in's path offering exactly the moved names.
 */
function behindMcp(file, registry, known, standIn) {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) ?? {};
  const moved = new Set();
  const movedGroups = new Set();
  const isKnown = (type) => registry.get(type) || registry.getGroup(type) || known.has(type);
  for (const section of ['functions', 'function_groups']) {
    for (const [name, entry] of Object.entries(doc[section] ?? {})) {
      if (entry && typeof entry === 'object' && !isKnown(entry._type)) {
        delete doc[section][name];
        (section === 'functions' ? moved : movedGroups).add(name);
      }
    }
  }
  if (moved.size + movedGroups.size === 0) return undefined;
  doc.function_groups = {
    ...(doc.function_groups ?? {}),
    [MCP_GROUP]: {
      _type: 'mcp_client',
      server: { transport: 'streamable-http', url: standIn.urlFor([...moved, ...movedGroups]) },
    },
  };
  // A local MCP server is a loopback address, which general.outbound refuses unless listed.
  const general = (doc.general ??= {});
  const outbound = (general.outbound ??= {});
  outbound.allow_hosts = [...new Set([...(outbound.allow_hosts ?? []), standIn.host])];
  // A moved function is one tool of the MCP group; a moved group's tools are all in it.
  const rename = (value) => {
    if (typeof value !== 'string') return value;
    if (moved.has(value)) return `${MCP_GROUP}__${value}`;
    if (movedGroups.has(value)) return MCP_GROUP;
    const [group, tool] = value.split('__');
    return tool !== undefined && movedGroups.has(group) ? `${MCP_GROUP}__${tool}` : value;
  };
  const rewrite = (node) => {
    if (Array.isArray(node))
      return [...new Set(node.map((v) => (typeof v === 'string' ? rename(v) : rewrite(v))))];
    if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        node[k] = /^(tool_names|tool_name|function_name)$/.test(k) ? rewrite(rename(v)) : rewrite(v);
      }
    }
    return node;
  };
  for (const section of ['functions', 'workflow']) if (doc[section]) rewrite(doc[section]);
  // A `base:` names a file beside the original: the rewritten copy stays in the same folder.
  const copy = path.join(path.dirname(file), `.interlude-mcp-${path.basename(file)}`);
  fs.writeFileSync(copy, YAML.stringify(doc));
  return copy;
}

function serve(file, env) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(DIST, 'cli.js'), 'serve', '--config', file, '--port', '0', '--host', '127.0.0.1'],
      {
        env: { ...env, LOG_LEVEL: 'error', INTERLUDE_CONFIG: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    const done = (result) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(
      () => done({ ok: false, reason: 'serve: no /health within 15 s' }),
      HEALTH_WAIT_MS,
    );
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', async (d) => {
      out += d;
      const url = / at (http:\/\/\S+) /.exec(out)?.[1];
      if (!url) return;
      const res = await fetch(`${url}/health`).catch(() => undefined);
      done(
        res?.ok ? { ok: true } : { ok: false, reason: `serve: /health answered ${res?.status ?? 'nothing'}` },
      );
    });
    child.on('exit', () => {
      const line = err.split('\n').find((l) => l.trim() && !l.startsWith('warning:')) ?? 'exited';
      done({ ok: false, reason: `serve: ${line.trim().slice(0, 160)}` });
    });
  });
}

async function main() {
  const args = process.argv.slice(2);
  const checkout = args.find((a) => !a.startsWith('--'));
  if (!checkout) usage('a NAT checkout path is required');
  const examples = path.join(checkout, 'examples');
  if (!fs.existsSync(examples)) usage(`${examples} does not exist`);
  if (args.includes('--types')) return writeTypes(path.resolve(checkout));
  if (!fs.existsSync(path.join(DIST, 'config', 'config.loader.js')))
    usage('build first: npx tsc -p tsconfig.build.json');
  const [withServe, withMcp, list, blockers] = ['--serve', '--mcp', '--list', '--blockers'].map((f) =>
    args.includes(f),
  );

  require('reflect-metadata');
  const loader = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const registry = builtinRegistry();
  // Types the loader builds outside the function registry (LLMs, auth, embedders, evaluators…) are never moved.
  const known = new Set(loader.NON_FUNCTION_TYPES ?? []);

  const all = yamlFiles(examples).filter((f) => !path.basename(f).startsWith('.interlude-mcp-'));
  // --only=<text>: the configs whose path contains it (to look at a few again).
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const configs = all.filter((f) => {
    const top = topLevel(f);
    return ('workflow' in top || 'base' in top) && (!only || f.includes(only));
  });
  const env = dummyEnv(all);
  const results = [];
  const copies = [];
  const standIn = withMcp ? await startStandIn() : undefined;
  for (const file of configs.sort()) {
    const target = withMcp ? (behindMcp(file, registry, known, standIn) ?? file) : file;
    if (target !== file) copies.push(target);
    let result = loadWith(loader, registry, target, env);
    if (result.ok && withServe) result = await serve(target, env);
    results.push({ file: path.relative(checkout, file), ...result });
  }
  for (const copy of copies) fs.rmSync(copy, { force: true });
  await standIn?.close();

  const started = results.filter((r) => r.ok);
  if (list) {
    for (const r of results)
      process.stdout.write(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file}${r.ok ? '' : `  ${r.reason}`}\n`);
    process.stdout.write('\n');
  }
  const byReason = new Map();
  for (const r of results.filter((x) => !x.ok))
    byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.file]);
  const mode = [
    withServe ? 'interlude serve + /health' : 'config loader',
    withMcp ? 'Python-only components behind one mcp_client group' : 'unchanged',
  ];
  process.stdout.write(`${started.length} of ${results.length} start (${mode.join(', ')})\n`);
  for (const [reason, files] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
    process.stdout.write(`${String(files.length).padStart(4)}  ${reason}\n`);
  }
  if (blockers) {
    // Every problem, not only the first: what fixing one kind of gap would unblock at most.
    const count = new Map();
    for (const r of results)
      for (const reason of r.all ?? []) count.set(reason, (count.get(reason) ?? 0) + 1);
    process.stdout.write('\nevery blocker (configs it appears in):\n');
    for (const [reason, n] of [...count].sort((a, b) => b[1] - a[1])) {
      process.stdout.write(`${String(n).padStart(4)}  ${reason}\n`);
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
