// `node scripts/nat-coverage.js <nat-checkout> --types`: every component `_type` NAT's packages and
// examples register, with its kind and Python package, written to src/config/nat-types.json (the table
// behind the loader's NAT-aware errors).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** A config class's kind by the NAT base class it extends (directly or through another config class). */
const BASE_KINDS = {
  FunctionBaseConfig: 'function',
  AgentBaseConfig: 'function',
  FunctionGroupBaseConfig: 'function group',
  MCPClientBaseConfig: 'function group',
  LLMBaseConfig: 'LLM',
  EmbedderBaseConfig: 'embedder',
  AuthProviderBaseConfig: 'authentication provider',
  RetrieverBaseConfig: 'retriever',
  MemoryBaseConfig: 'memory backend',
  ObjectStoreBaseConfig: 'object store',
  EvaluatorBaseConfig: 'evaluator',
  TelemetryExporterBaseConfig: 'telemetry exporter',
  LoggingBaseConfig: 'logging exporter',
  FrontEndBaseConfig: 'front end',
  FunctionMiddlewareBaseConfig: 'middleware',
  MiddlewareBaseConfig: 'middleware',
  DynamicMiddlewareConfig: 'middleware',
  DefenseMiddlewareConfig: 'middleware',
  TTCStrategyBaseConfig: 'test-time compute strategy',
  EvalDatasetBaseConfig: 'eval dataset',
};

/** The distribution a source file ships in: the nearest pyproject.toml's [project] name. */
function packageOf(file, checkout) {
  for (let dir = path.dirname(file); dir.startsWith(checkout) && dir !== checkout; dir = path.dirname(dir)) {
    const toml = path.join(dir, 'pyproject.toml');
    if (fs.existsSync(toml)) {
      const name = /^\[project\][^[]*?^name\s*=\s*"([^"]+)"/ms.exec(fs.readFileSync(toml, 'utf8'))?.[1];
      if (name) return name;
    }
  }
  return undefined;
}

/**
 * --types: every component `_type` NAT's packages and examples register (`class X(Base, name="t")`),
 * with its kind and Python package, for the loader's NAT-aware errors (src/config/nat-types.json).
 */
function writeTypes(checkout) {
  const sources = ['packages', 'examples'].flatMap((d) =>
    pyFiles(path.join(checkout, d)).filter((f) => !/[/\\]tests?[/\\]/.test(f)),
  );
  const classes = [];
  for (const file of sources) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^class (\w+)\(([^)]*?)\bname="([^"]+)"/gms)) {
      const bases = m[2]
        .split(',')
        .map((b) => b.trim().split('.').pop().split('[')[0])
        .filter(Boolean);
      classes.push({ cls: m[1], bases, type: m[3], file });
    }
  }
  const kindOfClass = new Map();
  for (let pass = 0; pass < 5; pass++) {
    for (const c of classes) {
      const kind = c.bases.map((b) => BASE_KINDS[b] ?? kindOfClass.get(b)).find(Boolean);
      if (kind) kindOfClass.set(c.cls, kind);
    }
  }
  const types = {};
  for (const c of classes.sort((a, b) => a.type.localeCompare(b.type))) {
    const kind = kindOfClass.get(c.cls);
    const pkg = packageOf(c.file, checkout);
    if (!kind || !pkg) continue;
    const example = path.relative(checkout, c.file).startsWith('examples');
    // One name may be several kinds (`nim` is an LLM and an embedder): each kind once.
    const kinds = (types[c.type] ??= []);
    if (!kinds.some(([k]) => k === kind)) kinds.push(example ? [kind, pkg, 'example'] : [kind, pkg]);
  }
  const out = path.join(ROOT, 'src', 'config', 'nat-types.json');
  fs.writeFileSync(out, `${JSON.stringify(types, null, 1)}\n`);
  process.stdout.write(
    `${Object.keys(types).length} NAT component types written to ${path.relative(ROOT, out)}\n`,
  );
}

function pyFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name.startsWith('.') || entry.name === 'node_modules' ? [] : pyFiles(full);
    return entry.name.endsWith('.py') ? [full] : [];
  });
}

module.exports = { writeTypes };
