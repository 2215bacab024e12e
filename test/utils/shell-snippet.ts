/**
 * A bash snippet of the docs, cut into what the snippet test does with it: `serve` commands (which the
 * test starts itself, on an ephemeral port) and the script between them, where each command followed by
 * output in comments (`# {"status":"healthy"}`, `# 202 {…}`, `# event: interaction_required`) has that
 * output captured so the test can compare it.
 */

/** `[ENV=value …] node dist/cli.js serve ARGS`, as a page tells the reader to start a server. */
export interface ServeCommand {
  env: Record<string, string>;
  /** The arguments as written (shell words, split by bash when the server is started). */
  args: string;
}

/** A command whose output the page shows: its index names the file the script leaves it in. */
export interface OutputCheck {
  index: number;
  command: string;
  /** The comment text, `# ` removed, lines joined with `\n`. */
  expected: string;
  /** A leading HTTP status (`# 204`, `# 202 {…}`), checked by the curl shim. */
  status?: number;
}

export type Segment =
  { kind: 'serve'; serve: ServeCommand } | { kind: 'script'; text: string; checks: OutputCheck[] };

interface Command {
  text: string;
  /** The comment after the command on its last line, `#` and one space removed. */
  trailing?: string;
}

type Item =
  { kind: 'blank' } | { kind: 'comment'; text: string; raw: string } | { kind: 'command'; cmd: Command };

const SERVE =
  /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)(?:node dist\/cli\.js|npx interlude|interlude)\s+serve(?:\s+([\s\S]*))?$/;

/** Whether a comment shows output: JSON, a status code, SSE fields or a response header. */
export function looksLikeOutput(comment: string): boolean {
  return (
    /^[[{]/.test(comment) ||
    /^[1-5]\d\d(?=$|[\s;,])/.test(comment) ||
    /^(id|event|data|retry): /.test(comment) ||
    /^[A-Z][a-z]+(-[A-Z][a-z]*)+: /.test(comment)
  );
}

/** Quote state after `line`, starting in `state`; `comment` is where an unquoted `#` starts a comment. */
function scan(line: string, state: '' | "'" | '"'): { state: '' | "'" | '"'; comment?: number } {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (state === "'") {
      if (c === "'") state = '';
    } else if (c === '\\') {
      i++;
    } else if (state === '"') {
      if (c === '"') state = '';
    } else if (c === "'" || c === '"') {
      state = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) {
      return { state, comment: i };
    }
  }
  return { state };
}

/** Lines into blank lines, comments and commands (continuations, open quotes and here-documents joined). */
function itemsOf(code: string): Item[] {
  const lines = code.split('\n');
  const items: Item[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) {
      items.push({ kind: 'blank' });
      continue;
    }
    if (line.trimStart().startsWith('#')) {
      items.push({ kind: 'comment', text: line.trimStart().replace(/^#\s?/, ''), raw: line });
      continue;
    }
    const parts = [line];
    let state = scan(line, '');
    let heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(line)?.[2];
    const hasHeredoc = heredoc !== undefined;
    while (i + 1 < lines.length) {
      const open = state.state !== '' || heredoc !== undefined;
      const continued = state.comment === undefined && /(\\|\||&&)\s*$/.test(parts[parts.length - 1]);
      if (!open && !continued) break;
      const next = lines[++i];
      parts.push(next);
      if (heredoc !== undefined) {
        if (next.trim() === heredoc) heredoc = undefined;
        continue;
      }
      state = scan(next, state.state);
    }
    const last = parts[parts.length - 1];
    const trailing =
      hasHeredoc || state.comment === undefined ? undefined : last.slice(state.comment + 1).trim();
    items.push({ kind: 'command', cmd: { text: parts.join('\n'), trailing } });
  }
  return items;
}

/** The `serve` command a logical line starts, if it is one. */
export function serveCommand(text: string): ServeCommand | undefined {
  const line = text
    .replace(/\\\n\s*/g, ' ')
    .replace(/\s+#.*$/, '')
    .trim();
  if (line === 'npm start') return { env: {}, args: '' };
  const found = SERVE.exec(line);
  if (!found) return undefined;
  const env: Record<string, string> = {};
  for (const pair of found[1].trim().split(/\s+/).filter(Boolean)) {
    const [name, ...value] = pair.split('=');
    env[name] = value.join('=');
  }
  return { env, args: (found[2] ?? '').trim() };
}

/** The output a command's comments show: its trailing comment, then the comment lines right below it. */
function expectedAfter(cmd: Command, following: Item[]): string[] {
  const shown: string[] = [];
  if (cmd.trailing !== undefined && looksLikeOutput(cmd.trailing)) shown.push(cmd.trailing);
  for (const item of following) {
    if (item.kind !== 'comment') break;
    const continues =
      shown.length > 0 && (/^#\s{2,}/.test(item.raw.trimStart()) || item.text.startsWith('…'));
    if (!looksLikeOutput(item.text) && !continues) break;
    shown.push(item.text);
  }
  return shown;
}

/** Wraps a command so its output is printed and kept in `$SNIPPET_OUT/<index>`. */
function captured(cmd: Command, check: OutputCheck): string {
  const status = check.status === undefined ? '' : `export SNIPPET_EXPECT_STATUS=${check.status}\n`;
  return [
    `__snippet_out=$(\n${status}${cmd.text}\n) || { __snippet_rc=$?; printf '%s\\n' "$__snippet_out"; exit "$__snippet_rc"; }`,
    `printf '%s\\n' "$__snippet_out"`,
    `printf '%s' "$__snippet_out" > "$SNIPPET_OUT/${check.index}"`,
  ].join('\n');
}

/** Cuts a bash snippet into serve commands and script segments with their output checks. */
export function segmentsOf(code: string): Segment[] {
  const items = itemsOf(code);
  const segments: Segment[] = [];
  let script: string[] = [];
  let checks: OutputCheck[] = [];
  let index = 0;
  const flush = () => {
    if (script.some((l) => l.trim() && !l.trimStart().startsWith('#'))) {
      segments.push({ kind: 'script', text: script.join('\n'), checks });
    }
    script = [];
    checks = [];
  };
  items.forEach((item, i) => {
    if (item.kind === 'blank') return script.push('');
    if (item.kind === 'comment') return script.push(item.raw);
    const serve = serveCommand(item.cmd.text);
    if (serve) {
      flush();
      segments.push({ kind: 'serve', serve });
      return;
    }
    const shown = expectedAfter(item.cmd, items.slice(i + 1));
    if (shown.length === 0) return script.push(item.cmd.text);
    const expected = shown.join('\n');
    const status = /^([1-5]\d\d)(?=$|[\s;,])/.exec(expected)?.[1];
    const check: OutputCheck = {
      index: index++,
      command: item.cmd.text,
      expected,
      status: status === undefined ? undefined : Number(status),
    };
    checks.push(check);
    script.push(captured(item.cmd, check));
  });
  flush();
  return segments;
}

/** What is wrong with `actual` given the output a page shows for it (empty when it fits). */
export function outputProblems(expected: string, actual: string): string[] {
  const problems: string[] = [];
  for (const [, key] of expected.matchAll(/"([A-Za-z_][\w-]*)"\s*:/g)) {
    if (!new RegExp(`"${key}"\\s*:`).test(actual)) problems.push(`no "${key}" key`);
  }
  const pairs = /"(status|type|event_type|object|input_type|success)"\s*:\s*("[^"…]*"|true|false)/g;
  for (const [, key, value] of expected.matchAll(pairs)) {
    if (!new RegExp(`"${key}"\\s*:\\s*${escape(value)}`).test(actual)) problems.push(`no "${key}":${value}`);
  }
  for (const line of expected.split('\n')) {
    const sse = /^(id|event|retry): (\S+)$/.exec(line);
    if (sse && !actual.split('\n').includes(line)) problems.push(`no line "${line}"`);
    const header = /^([A-Z][a-z]+(?:-[A-Z][a-z]*)+):\s*(\S+)/.exec(line);
    if (header) {
      const value = header[2].includes('…') ? '' : escape(header[2]);
      if (!new RegExp(`^${header[1]}:\\s*${value}`, 'im').test(actual)) problems.push(`no header "${line}"`);
    }
  }
  return problems;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
