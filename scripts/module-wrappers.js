// Rewrites the bundle's module wrappers from arrow functions to function expressions, and the source map
// with them, so that V8 preparses each module's body instead of parsing it in full at every start.
//
// Minified, esbuild wraps each bundled module as `var x=f((e,t)=>{…})` (CommonJS) or `var y=v(()=>{…})`
// (ES module). Node compiles the bundle inside its CommonJS wrapper function, and V8 preparses only the
// arrow functions of a script's own top level: inside a function, an arrow function's body is parsed in
// full (the AST of every module at once) and thrown away, to be parsed again when the module is first
// required. A `function(e,t){…}` wrapper is preparsed like any inner function. Measured on the 3.5 MB
// bundle: V8's peak compiler memory at start-up 27.9 -> 6.7 MB; glibc kept that freed memory whenever a
// later allocation landed above it, 20 MiB of idle RSS in one start out of two (config/default.yml).
//
// A wrapper whose own body uses `this`, `arguments`, `super` or `new.target` stays an arrow function (an
// arrow and a function expression would read them differently); esbuild's helpers call the wrappers as
// plain functions, so for every other wrapper the two are the same.
const fs = require('node:fs');
const acorn = require('acorn');
const { decode, encode } = require('@jridgewell/sourcemap-codec');

/** Nodes an arrow's own `this`/`arguments` can be read in: not inside a nested non-arrow function. */
function readsOwnBinding(node) {
  let found = false;
  const visit = (n) => {
    if (found || !n || typeof n.type !== 'string') return;
    if (n.type === 'ThisExpression' || n.type === 'Super' || n.type === 'MetaProperty') found = true;
    else if (n.type === 'Identifier' && n.name === 'arguments') found = true;
    if (found) return;
    // A class field's initializer and a static block have a `this` of their own.
    if (n.type === 'StaticBlock') return;
    if (n.type === 'PropertyDefinition') return n.computed ? visit(n.key) : undefined;
    const own = n.type === 'FunctionExpression' || n.type === 'FunctionDeclaration';
    for (const [key, value] of Object.entries(n)) {
      // Inside a nested function only computed keys, defaults and the like could still read ours: its
      // params and body are its own.
      if (own && (key === 'body' || key === 'params')) continue;
      if (key === 'type' || key === 'start' || key === 'end') continue;
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') visit(value);
    }
  };
  visit(node.body);
  return found;
}

/** The top-level `var x = helper(() => {…})` arrows, for helpers called that way at least `min` times. */
function wrapperArrows(ast, min) {
  const calls = new Map();
  for (const statement of ast.body) {
    if (statement.type !== 'VariableDeclaration') continue;
    for (const { init } of statement.declarations) {
      if (init?.type !== 'CallExpression' || init.callee.type !== 'Identifier') continue;
      const [arrow, ...rest] = init.arguments;
      if (rest.length || arrow?.type !== 'ArrowFunctionExpression' || arrow.body.type !== 'BlockStatement')
        continue;
      if (!calls.has(init.callee.name)) calls.set(init.callee.name, []);
      calls.get(init.callee.name).push(arrow);
    }
  }
  return [...calls.values()]
    .filter((arrows) => arrows.length >= min)
    .flat()
    .sort((a, b) => a.start - b.start);
}

/** Moves the generated columns of `mappings` by the edits: per line, [column, delta] in column order. */
function shiftColumns(mappings, editsByLine) {
  const lines = decode(mappings);
  for (const [index, edits] of editsByLine) {
    for (const segment of lines[index] ?? []) {
      const column = segment[0];
      segment[0] += edits.reduce((sum, [at, delta]) => (column > at ? sum + delta : sum), 0);
    }
  }
  return encode(lines);
}

/**
 * Rewrites `file` (and `file.map` when the file links it) in place. Returns how many wrappers became
 * function expressions and how many stayed arrows.
 */
function preparsedModuleWrappers(file) {
  const text = fs.readFileSync(file, 'utf8');
  const ast = acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true });
  const arrows = wrapperArrows(ast, 20);
  const edits = [];
  let kept = 0;
  for (const arrow of arrows) {
    if (arrow.async || arrow.generator || readsOwnBinding(arrow)) {
      kept++;
      continue;
    }
    const head = text.slice(arrow.start, arrow.body.start);
    const params = head.slice(0, head.lastIndexOf('=>')).trim();
    const replacement = `function${params.startsWith('(') ? params : `(${params})`}`;
    edits.push({ start: arrow.start, end: arrow.body.start, replacement });
  }
  if (edits.length === 0) return { rewritten: 0, kept };

  let out = '';
  let at = 0;
  const editsByLine = new Map();
  let line = 0;
  let lineStart = 0;
  for (const edit of edits) {
    for (let i = text.indexOf('\n', lineStart); i !== -1 && i < edit.start; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    if (!editsByLine.has(line)) editsByLine.set(line, []);
    const delta = edit.replacement.length - (edit.end - edit.start);
    editsByLine.get(line).push([edit.start - lineStart, delta]);
    out += text.slice(at, edit.start) + edit.replacement;
    at = edit.end;
  }
  out += text.slice(at);
  fs.writeFileSync(file, out);

  const mapFile = `${file}.map`;
  if (fs.existsSync(mapFile)) {
    const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
    map.mappings = shiftColumns(map.mappings, editsByLine);
    fs.writeFileSync(mapFile, JSON.stringify(map));
  }
  return { rewritten: edits.length, kept };
}

module.exports = { preparsedModuleWrappers, shiftColumns };
