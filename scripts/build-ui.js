#!/usr/bin/env node
// Builds the built-in page (ui/) into dist/public: one script and one stylesheet, named by their content
// hash so the server can let browsers cache them for good, and index.html pointing at them.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'public');

async function buildUi({ out = OUT, minify = true } = {}) {
  fs.rmSync(out, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'ui', 'main.ts'), path.join(ROOT, 'ui', 'app.css')],
    bundle: true,
    minify,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    entryNames: '[name]-[hash]',
    outdir: path.join(out, 'assets'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const names = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const script = names.find((n) => n.endsWith('.js'));
  const style = names.find((n) => n.endsWith('.css'));
  const html = fs
    .readFileSync(path.join(ROOT, 'ui', 'index.html'), 'utf8')
    .replace('%SCRIPT%', `assets/${script}`)
    .replace('%STYLE%', `assets/${style}`);
  fs.writeFileSync(path.join(out, 'index.html'), html);
  fs.copyFileSync(path.join(ROOT, 'ui', 'icon.svg'), path.join(out, 'icon.svg'));
  return { script, style };
}

module.exports = { buildUi };

if (require.main === module) {
  buildUi().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
