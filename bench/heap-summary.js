'use strict';
/**
 * What a set of objects costs, from two V8 heap snapshots of one server (e.g. the ones
 * `node bench/run.js --only hitl --heap-snapshot` leaves in bench/profiles/). Usage:
 *   node bench/heap-summary.js <before.heapsnapshot> <after.heapsnapshot> [--per N] [--rows N]
 *
 * Groups every node by kind and name (objects by constructor, closures by function and src/ line;
 * plain Objects, arrays, strings, scopes and V8 internals by what holds them) and lists the growth from
 * before to after, largest first: node count and self size, divided by --per (e.g. the number of
 * executions added in between).
 * Closures in dist/ are mapped back to src/*.ts through the build's source maps.
 */
const fs = require('node:fs');
const path = require('node:path');
const { SourceMap } = require('node:module');

const ROOT = path.resolve(__dirname, '..');
const maps = new Map();

function srcLine(file, line, column) {
  if (!maps.has(file)) {
    let map;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(file, map);
  }
  const entry = maps.get(file)?.findEntry(line, column);
  if (!entry?.originalSource) return undefined;
  const src = entry.originalSource.startsWith('file://')
    ? new URL(entry.originalSource).pathname
    : path.resolve(path.dirname(file), entry.originalSource);
  return `${path.relative(ROOT, src)}:${entry.originalLine + 1}`;
}

/** Kinds named after what holds them rather than by their own (uninformative) name. */
const BY_HOLDER = new Set([
  'array',
  'hidden',
  'string',
  'concatenated string',
  'sliced string',
  'number',
  'object shape',
]);
const BY_HOLDER_NAMES = new Set([
  'system / Context',
  'system / PropertyArray',
  'Object',
  'Map',
  'Set',
  'Promise',
  'Generator',
  'Array',
]);

/** Self size and count per group key of one snapshot. */
function groups(file) {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
  const { meta } = snap.snapshot;
  const { nodes, edges, strings } = snap;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const count = nodes.length / nf;
  const types = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const at = (name) => meta.node_fields.indexOf(name);
  const [TYPE, NAME, SIZE, EDGES] = [at('type'), at('name'), at('self_size'), at('edge_count')];
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map((n) => meta.edge_fields.indexOf(n));
  const typeOf = (n) => types[nodes[n * nf + TYPE]];
  const nameOf = (n) => strings[nodes[n * nf + NAME]];

  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += nodes[n * nf + EDGES] * ef;
  }
  firstEdge[count] = edges.length;
  const labelOf = (e) => {
    const type = edgeTypes[edges[e + ETYPE]];
    return type === 'element' || type === 'hidden' ? `[${edges[e + ENAME]}]` : strings[edges[e + ENAME]];
  };
  const edgeTo = (n, label) => {
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += ef)
      if (labelOf(e) === label) return edges[e + ETO] / nf;
    return -1;
  };

  // One holder per node: the first strong edge reaching it (enough to say whose array it is).
  const holder = new Int32Array(count).fill(-1);
  const holderEdge = new Int32Array(count).fill(-1);
  for (let n = 0; n < count; n++) {
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += ef) {
      if (edgeTypes[edges[e + ETYPE]] === 'weak') continue;
      const to = edges[e + ETO] / nf;
      if (holder[to] < 0) {
        holder[to] = n;
        holderEdge[to] = e;
      }
    }
  }

  const locations = new Map();
  const lf = meta.location_fields?.length ?? 4;
  for (let i = 0; i < (snap.locations?.length ?? 0); i += lf) {
    locations.set(snap.locations[i] / nf, [snap.locations[i + 2], snap.locations[i + 3]]);
  }
  const closureName = (n) => {
    const shared = edgeTo(n, 'shared');
    const scriptNode = shared < 0 ? -1 : edgeTo(shared, 'script_or_debug_info');
    const script = scriptNode < 0 ? undefined : nameOf(scriptNode);
    const loc = locations.get(n);
    let where = '';
    if (loc && script?.startsWith(path.join(ROOT, 'dist'))) {
      where = srcLine(script, loc[0], loc[1]) ?? `${path.relative(ROOT, script)}:${loc[0] + 1}`;
    } else if (loc && script) {
      const nm = script.lastIndexOf('node_modules/');
      where = `${nm >= 0 ? script.slice(nm + 13) : script}:${loc[0] + 1}`;
    }
    return `${nameOf(n) || '(anonymous)'}${where ? ` ${where}` : ''}`;
  };
  const describe = (n) => {
    const type = typeOf(n);
    if (type === 'closure') return `closure ${closureName(n)}`;
    if (type === 'object' && nameOf(n) === 'system / Context') {
      // A scope: name it after a closure or generator that holds it.
      const h = holder[n];
      return h >= 0 && typeOf(h) === 'closure' ? `Context of ${closureName(h)}` : 'Context';
    }
    return `${type} ${nameOf(n)}`;
  };

  const out = new Map();
  for (let n = 0; n < count; n++) {
    const type = typeOf(n);
    const name = nameOf(n);
    let key;
    if (type === 'closure' && (name || locations.has(n))) key = `closure\t${closureName(n)}`;
    else if (BY_HOLDER.has(type) || type === 'closure' || (type === 'object' && BY_HOLDER_NAMES.has(name))) {
      const h = holder[n];
      const via = h >= 0 ? `${describe(h)} .${labelOf(holderEdge[n]).replace(/^\[\d+\]$/, '[i]')}` : '?';
      key = `${type}${type === 'object' || type === 'object shape' ? ` ${name}` : ''}\t← ${via}`;
    } else key = `${type}\t${name}`;
    const g = out.get(key) ?? { count: 0, size: 0 };
    g.count++;
    g.size += nodes[n * nf + SIZE];
    out.set(key, g);
  }
  return out;
}

function main() {
  const argv = process.argv.slice(2);
  const opt = (flag, fallback) => {
    const i = argv.indexOf(flag);
    if (i < 0) return fallback;
    const [v] = argv.splice(i, 2).slice(1);
    return Number(v);
  };
  const per = opt('--per', 1);
  const rows = opt('--rows', 40);
  const [beforeFile, afterFile] = argv;
  if (!beforeFile || !afterFile) {
    console.error('usage: node bench/heap-summary.js <before.heapsnapshot> <after.heapsnapshot> [--per N]');
    process.exit(2);
  }
  const before = groups(beforeFile);
  const after = groups(afterFile);
  const diff = [];
  let total = 0;
  let totalCount = 0;
  for (const [key, a] of after) {
    const b = before.get(key) ?? { count: 0, size: 0 };
    const d = { key, count: (a.count - b.count) / per, size: (a.size - b.size) / per };
    total += d.size;
    totalCount += d.count;
    diff.push(d);
  }
  for (const [key, b] of before) {
    if (!after.has(key)) {
      total -= b.size / per;
      totalCount -= b.count / per;
      diff.push({ key, count: -b.count / per, size: -b.size / per });
    }
  }
  diff.sort((x, y) => Math.abs(y.size) - Math.abs(x.size));
  const f = (n, d = 1) => n.toFixed(d);
  console.log(
    `Growth ${per === 1 ? '' : `per ${per} (e.g. per execution)`}: ${f(total, 0)} bytes self size in ${f(totalCount)} nodes`,
  );
  console.log(['bytes', 'nodes', 'kind', 'name'].join('\t'));
  for (const d of diff.slice(0, rows)) {
    const [type, name] = d.key.split('\t');
    console.log(`${f(d.size, 0)}\t${f(d.count, 2)}\t${type}\t${name}`);
  }
}

main();
