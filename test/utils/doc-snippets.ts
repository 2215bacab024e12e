import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { marked, type Tokens } from 'marked';

/**
 * Every fenced code block of README.md and docs/*.md, with the `<!-- snippet: … -->` marker written on
 * the line before it (the conventions are described at the top of test/e2e/docs-snippets.e2e-spec.ts).
 */
export interface Snippet {
  /** Relative to the repository: `README.md`, `docs/websocket.md`. */
  page: string;
  /** The line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  marker: Marker;
}

export interface Marker {
  /** `not run (why)`: the block is listed, never run. */
  notRun?: string;
  /** `config=FILE`: run against `interlude serve --config FILE` instead of the page's current server. */
  config?: string;
  /** `file=NAME`: the block is a file a later bash block of the page uses; it is written, not run. */
  file?: string;
  /** `response=/path`: a JSON block is what GET /path answers (compared key by key). */
  response?: string;
  /** `excerpt=a.ts,b.ts`: every line of the block is a line of one of these files. */
  excerpt?: string[];
  /** `evaluation-file=DIR`: a YAML block is an evaluation file beside DIR's dataset and workflow files. */
  evaluationFile?: string;
}

/** `README.md` and every `docs/*.md`, relative to `root`. */
export function docPages(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

const MARKER = /^<!--\s*snippet:\s*([\s\S]*?)\s*-->\s*$/;

/** Reads a marker's directives; anything it does not know is an error, so a typo cannot hide a block. */
export function parseMarker(text: string, where: string): Marker {
  const notRun = /^not run \((.+)\)$/.exec(text);
  if (notRun) return { notRun: notRun[1] };
  const marker: Marker = {};
  for (const directive of text.split(/\s+/)) {
    const [key, value] = directive.split('=', 2);
    if (!value) throw new Error(`${where}: snippet marker directive "${directive}" has no value`);
    if (key === 'config') marker.config = value;
    else if (key === 'file') marker.file = value;
    else if (key === 'response') marker.response = value;
    else if (key === 'excerpt') marker.excerpt = value.split(',');
    else if (key === 'evaluation-file') marker.evaluationFile = value;
    else throw new Error(`${where}: unknown snippet marker directive "${key}"`);
  }
  return marker;
}

/** The fenced code blocks of one page, in order. */
export function snippetsOf(root: string, page: string): Snippet[] {
  const source = readFileSync(resolve(root, page), 'utf8');
  const snippets: Snippet[] = [];
  let line = 1;
  let previous: string | undefined;
  for (const token of marked.lexer(source)) {
    if (token.type === 'code' && (token as Tokens.Code).codeBlockStyle !== 'indented') {
      const code = token as Tokens.Code;
      const where = `${page}:${line}`;
      const found = previous === undefined ? null : MARKER.exec(previous.trim());
      snippets.push({
        page,
        line,
        lang: code.lang ?? '',
        code: code.text,
        marker: found ? parseMarker(found[1], where) : {},
      });
    }
    if (token.type !== 'space') previous = token.type === 'html' ? token.raw : undefined;
    line += token.raw.split('\n').length - 1;
  }
  return snippets;
}
