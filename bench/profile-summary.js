'use strict';
/**
 * Where a server's CPU time goes, from a V8 .cpuprofile written by `node bench/run.js --profile`
 * (bench/profiles/). Usage:
 *   node bench/profile-summary.js <a.cpuprofile> [--vs <b.cpuprofile>] [--rows N]
 *
 * Prints self time by package / src file and by function, and the inclusive time of src/ functions
 * (dist/ frames mapped back to src/*.ts lines through the build's source maps). When run.js left a
 * `<file>.meta` beside the profile, times are per request (or per chunk) in µs; with --vs, the
 * tables show both profiles and the difference, largest first.
 *
 * Inclusive times follow the synchronous stack only: a middleware that calls next() includes the
 * handlers after it, and code resumed after an `await` is not counted under the function awaiting.
 */
const fs = require('node:fs');
const path = require('node:path');
const { SourceMap } = require('node:module');

const ROOT = path.resolve(__dirname, '..');
const maps = new Map();

function sourceMap(file) {
  if (!maps.has(file)) {
    let map;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** `src/x.ts:12` for dist frames, `pkg/file.js:12` for node_modules, `node:internal/...` otherwise. */
function where({ url, lineNumber, columnNumber }) {
  if (!url) return '(native)';
  const file = url.startsWith('file://') ? new URL(url).pathname : url;
  // Any build's dist/ (this tree's or a base build's elsewhere), named relative to its own tree.
  const at = file.lastIndexOf(`${path.sep}dist${path.sep}`);
  const tree = at >= 0 && !file.includes(`node_modules${path.sep}`) ? file.slice(0, at) : undefined;
  if (tree) {
    const entry = sourceMap(file)?.findEntry(lineNumber, columnNumber);
    if (entry?.originalSource) {
      const src = entry.originalSource.startsWith('file://')
        ? new URL(entry.originalSource).pathname
        : path.resolve(path.dirname(file), entry.originalSource);
      // A package the bundle (dist/cli.js) took in is named like one loaded from node_modules.
      const nm = src.lastIndexOf(`node_modules${path.sep}`);
      if (nm >= 0) return `${src.slice(nm + 13)}:${entry.originalLine + 1}`;
      return `${path.relative(tree, src)}:${entry.originalLine + 1}`;
    }
    return `${path.relative(tree, file)}:${lineNumber + 1}`;
  }
  const nm = file.lastIndexOf(`node_modules${path.sep}`);
  if (nm >= 0) return `${file.slice(nm + 13)}:${lineNumber + 1}`;
  return `${path.relative(ROOT, file)}:${lineNumber + 1}`;
}

/** The package (or our src file) a frame belongs to. */
function owner(at) {
  if (at.startsWith('src/') || at.startsWith('dist/') || at.startsWith('bench/'))
    return at.replace(/:\d+$/, '');
  if (at.startsWith('node:') || at.startsWith('(')) return at.replace(/:\d+$/, '').split('/')[0];
  const parts = at.split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * `meta` (`{units, unit, label}`) defaults to the `<file>.meta` sidecar run.js leaves beside a profile.
 * A sample with a frame that `skip(at)` names (e.g. the code that started the profiler) is left out.
 */
function analyse(file, meta = sidecar(file), { skip } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = new Map(
    profile.nodes.map((n) => [
      n.id,
      { name: n.callFrame.functionName || '(anonymous)', at: where(n.callFrame) },
    ]),
  );
  const self = new Map();
  const byOwner = new Map();
  const inclusive = new Map();
  let busy = 0;
  let idle = 0;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  const stack = (id) => {
    const frames = [];
    for (let n = id; n !== undefined; n = parent.get(n)) frames.push(label.get(n));
    return frames;
  };
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const { name, at } = label.get(id);
    if (skip && stack(id).some((l) => skip(l.at))) return;
    if (name === '(idle)') {
      idle += us;
      return;
    }
    busy += us;
    add(self, `${name}  ${at}`, us);
    add(byOwner, owner(at), us);
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const l = label.get(n);
      if (!l.at.startsWith('src/')) continue;
      const key = `${l.name}  ${l.at}`;
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, us);
    }
  });
  // Per request / chunk when run.js recorded how many the window served, else milliseconds.
  const scale = meta.units ? 1 / meta.units : 1 / 1000;
  const unit = meta.units ? `µs/${meta.unit}` : 'ms';
  const scaled = (map) => new Map([...map].map(([k, us]) => [k, us * scale]));
  return {
    file,
    meta,
    unit,
    busy: busy * scale,
    idle: idle * scale,
    tables: { owner: scaled(byOwner), self: scaled(self), inclusive: scaled(inclusive) },
  };
}

function sidecar(file) {
  try {
    return JSON.parse(fs.readFileSync(`${file}.meta`, 'utf8'));
  } catch {
    return {}; // no sidecar: report milliseconds
  }
}

function main() {
  const argv = process.argv.slice(2);
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv.splice(i, 2)[1] : undefined;
  };
  const vs = opt('--vs');
  const rows = Number(opt('--rows') ?? 25);
  const [file] = argv;
  if (!file) {
    console.error('usage: node bench/profile-summary.js <a.cpuprofile> [--vs <b.cpuprofile>] [--rows N]');
    process.exit(2);
  }
  // bench/scale-out.js starts the profiler from inside the server; that start is no work of the server's.
  const options = { skip: (at) => at.includes('profile-on-signal.js') };
  const a = analyse(file, undefined, options);
  const b = vs ? analyse(vs, undefined, options) : undefined;
  if (b && a.unit !== b.unit) console.warn(`warning: comparing ${a.unit} with ${b.unit}`);
  const n = (v) => (v ?? 0).toFixed(a.unit === 'ms' ? 0 : 2).padStart(9);
  const describe = (x) =>
    `${path.basename(x.file)}${x.meta.label ? ` (${x.meta.label})` : ''}: busy ${n(x.busy).trim()} ${x.unit}, idle ${n(x.idle).trim()} ${x.unit}`;
  console.log(describe(a));
  if (b) console.log(`vs ${describe(b)}`);

  const titles = {
    owner: 'Self time by package / src file',
    self: 'Self time by function',
    inclusive: 'Inclusive time of src/ functions (synchronous stack, see header)',
  };
  for (const [key, title] of Object.entries(titles)) {
    const ta = a.tables[key];
    const tb = b?.tables[key];
    const keys = new Set([...ta.keys(), ...(tb?.keys() ?? [])]);
    const rowsOut = [...keys].map((k) => ({ k, va: ta.get(k) ?? 0, vb: tb?.get(k) ?? 0 }));
    rowsOut.sort((x, y) => (tb ? y.va - y.vb - (x.va - x.vb) : y.va - x.va));
    console.log(`\n${title} — ${a.unit}${tb ? ': this, baseline, difference (largest extra first)' : ''}`);
    for (const r of rowsOut.slice(0, rows)) {
      const share = `${((100 * r.va) / a.busy).toFixed(1).padStart(5)}%`;
      console.log(tb ? `${n(r.va)} ${n(r.vb)} ${n(r.va - r.vb)}  ${r.k}` : `${share} ${n(r.va)}  ${r.k}`);
    }
  }
}

if (require.main === module) main();

module.exports = { analyse };
