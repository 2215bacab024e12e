#!/usr/bin/env node
// The dependency rules of docs/architecture.md, "Project layout", checked on every import under src/:
// no cycle between folders, no face importing another face, every folder importing only the
// layers below it, runtime/ free of HTTP types; inside executions/, the same between its subfolders,
// and other folders reach executions/ only through its public surface. Test code (*.spec.ts,
// *.contract.ts) is not checked.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const SRC = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'src'));

/** Folders by layer, top first; a folder may import its own layer's folders only where `peers` says so. */
const LAYERS = [
  { name: 'root', folders: ['.'] },
  {
    name: 'faces',
    folders: [
      'workflows',
      'openai',
      'gateway',
      'http-interactive',
      'monitoring',
      'feedback',
      'mcp',
      'mcp-server',
      'agui',
      'a2a',
      'responses',
      'jobs',
      'ui',
      'conversations',
    ],
  },
  { name: 'http responders', folders: ['http-responders'] },
  { name: 'engine', folders: ['executions'] },
  { name: 'waits', folders: ['interactions', 'oauth'] },
  { name: 'db', folders: ['db', 'redis'] },
  { name: 'config', folders: ['config'] },
  { name: 'runtime', folders: ['runtime'] },
  { name: 'core', folders: ['core'] },
];
const RANK = new Map(LAYERS.flatMap((layer, i) => layer.folders.map((f) => [f, i])));

/**
 * executions/ by layer, top first ('.': its module and adapter providers, which wire the rest). The
 * engine runs executions; durability hands them between replicas through interfaces of its own that
 * the engine implements (durability/execution-takeover.ts, durable-prompt.ts), so it never imports
 * the engine; the store and the face renderers rest on the model (the handle a face holds, the record
 * and its state machine), and the model on the event-log port (a handle carries its events).
 */
const EXECUTIONS = 'executions';
const EXECUTION_LAYERS = [
  { name: 'module', folders: ['.'] },
  { name: 'engine', folders: ['engine'] },
  { name: 'durability', folders: ['durability'] },
  { name: 'store and rendering', folders: ['store', 'rendering'] },
  { name: 'model', folders: ['model'] },
  { name: 'event log', folders: ['event-log'] },
];
const EXECUTION_RANK = new Map(EXECUTION_LAYERS.flatMap((layer, i) => layer.folders.map((f) => [f, i])));

/**
 * What folders outside executions/ may import from it (paths under executions/; a trailing / is a
 * whole subfolder): the module and its adapter providers; the service faces call and the per-user
 * workflow instances; the model faces hand around and the renderers they register; the store's port
 * and the trace owners (DI tokens the module exports). The engine's inside, the adapters, the event
 * logs and durability stay private.
 */
const EXECUTIONS_PUBLIC = [
  'executions.module.ts',
  'execution-adapters.ts',
  'engine/execution.service.ts',
  'engine/workflow-instances.ts',
  'model/',
  'rendering/',
  'store/execution.store.ts',
  'store/trace-owners.ts',
];

/** Imports runtime/ may not make: it is plain TypeScript that could run in a worker process. */
const HTTP_MODULES = new Set(['express', '@nestjs/swagger', '@nestjs/platform-express']);
const NEST_HTTP_NAMES = new Set([
  'Controller',
  'Get',
  'Post',
  'Put',
  'Patch',
  'Delete',
  'Options',
  'Head',
  'All',
  'Req',
  'Res',
  'Body',
  'Query',
  'Param',
  'Headers',
  'HttpCode',
  'Header',
  'Redirect',
  'Sse',
  'HttpException',
  'HttpStatus',
  'UseGuards',
  'UseFilters',
  'UseInterceptors',
  'UsePipes',
]);

/**
 * Known breaks of the rules, as `'<file under src/> -> <folder or package>': '<why>'` (in executions/,
 * `executions/<subfolder>`; past its public surface, `executions/<file>`); anything not
 * listed fails. None today. Remove an entry when its break is fixed (a listed break that no longer
 * occurs fails too, so the list stays true).
 */
const KNOWN = {};

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    const test = /\.(spec|contract)\.ts$/.test(entry.name);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !test ? [full] : [];
  });
}

function folderOf(file) {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length === 1 ? '.' : rel[0];
}

/** The path under executions/ of a file in it, and its subfolder ('.' for the module's own files). */
function insideExecutions(file) {
  const rel = path.relative(path.join(SRC, EXECUTIONS), file).split(path.sep);
  return { rel: rel.join('/'), sub: rel.length === 1 ? '.' : rel[0] };
}

/** Whether layer `from` may import layer `to` (`ranks` by folder): a message when it may not. */
function layerBreak(ranks, layers, from, to, what) {
  if (!ranks.has(from) || !ranks.has(to)) {
    return `folder ${what(!ranks.has(from) ? from : to)} has no layer in scripts/check-layers.js`;
  }
  if (ranks.get(from) === ranks.get(to)) {
    return `${what(from)} imports ${what(to)}, a folder of its own layer (${layers[ranks.get(from)].name})`;
  }
  if (ranks.get(from) > ranks.get(to)) return `${what(from)} imports ${what(to)}, which is above it`;
  return undefined;
}

function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found = [];
  for (const statement of source.statements) {
    const isImport = ts.isImportDeclaration(statement);
    if (!isImport && !(ts.isExportDeclaration(statement) && statement.moduleSpecifier)) continue;
    const spec = statement.moduleSpecifier.text;
    const names = [];
    const bindings = isImport ? statement.importClause?.namedBindings : undefined;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
    }
    found.push({ spec, names });
  }
  return found;
}

const problems = [];
const seenKnown = new Set();
const edges = new Map();
/** Imports between the subfolders of executions/. */
const innerEdges = new Map();
const report = (key, message) => {
  if (KNOWN[key] !== undefined) seenKnown.add(key);
  else problems.push(message);
};

for (const file of sourceFiles(SRC)) {
  const rel = path.relative(SRC, file).split(path.sep).join('/');
  const from = folderOf(file);
  for (const { spec, names } of importsOf(file)) {
    if (!spec.startsWith('.')) {
      if (from !== 'runtime') continue;
      const nestHttp = spec === '@nestjs/common' ? names.filter((n) => NEST_HTTP_NAMES.has(n)) : [];
      if (HTTP_MODULES.has(spec) || nestHttp.length > 0) {
        const what = nestHttp.length > 0 ? `${spec} (${nestHttp.join(', ')})` : spec;
        report(`${rel} -> ${spec}`, `${rel}: runtime/ imports HTTP types from ${what}`);
      }
      continue;
    }
    const target = path.resolve(path.dirname(file), spec);
    if (!target.startsWith(SRC)) continue;
    const targetFile = target.endsWith('.ts') ? target : `${target}.ts`;
    const to = folderOf(targetFile);
    if (to === EXECUTIONS) checkExecutions(rel, file, from, targetFile);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
    const broken = layerBreak(RANK, LAYERS, from, to, (f) => `${f}/`);
    if (broken) report(`${rel} -> ${to}`, `${rel}: ${broken}`);
  }
}

/** An import of executions/: between its subfolders, by their layers; from outside, of its public surface. */
function checkExecutions(rel, file, from, target) {
  const to = insideExecutions(target);
  if (from !== EXECUTIONS) {
    const open = EXECUTIONS_PUBLIC.some((p) => (p.endsWith('/') ? to.rel.startsWith(p) : to.rel === p));
    if (!open) {
      const key = `${rel} -> ${EXECUTIONS}/${to.rel}`;
      report(key, `${rel}: imports executions/${to.rel}, which is not in executions/'s public surface`);
    }
    return;
  }
  const sub = insideExecutions(file).sub;
  if (sub === to.sub) return;
  if (!innerEdges.has(sub)) innerEdges.set(sub, new Set());
  innerEdges.get(sub).add(to.sub);
  const name = (f) => (f === '.' ? `${EXECUTIONS}/` : `${EXECUTIONS}/${f}/`);
  const broken = layerBreak(EXECUTION_RANK, EXECUTION_LAYERS, sub, to.sub, name);
  if (broken) report(`${rel} -> ${EXECUTIONS}/${to.sub}`, `${rel}: ${broken}`);
}

// Cycles between folders (a strongly connected component of more than one folder).
function findCycles(graph, label) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  function connect(v) {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexOf.get(w)));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1)
        problems.push(`import cycle between folders: ${component.map(label).sort().join(' <-> ')}`);
    }
  }
  for (const v of graph.keys()) if (!indexOf.has(v)) connect(v);
}
findCycles(edges, (f) => f);
findCycles(innerEdges, (f) => `${EXECUTIONS}/${f === '.' ? '' : f}`);

for (const key of Object.keys(KNOWN)) {
  if (!seenKnown.has(key))
    problems.push(`scripts/check-layers.js lists "${key}", which no longer occurs: remove it`);
}

if (problems.length > 0) {
  console.error(`Layer rules broken (${problems.length}):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `Layer rules hold: ${edges.size} folders and executions/'s ${innerEdges.size} layered inside, ` +
    'no cycle, no face importing a face, executions/ reached only through its public surface.',
);
