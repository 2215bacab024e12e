import { readFileSync, realpathSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';

const PREFIX = 'file://';

/** NAT's list: text and template files only, so a `file://` never reads code or keys by mistake. */
const ALLOWED_EXTENSIONS = new Set([
  '.txt',
  '.md',
  '.j2',
  '.jinja2',
  '.jinja',
  '.prompt',
  '.tpl',
  '.template',
]);

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * NeMo Agent Toolkit's `file://` values (`system_prompt: file://../prompts/system.txt`): a string of a
 * mapping that starts with `file://` is replaced by that file's text, read relative to the config file.
 * As in NAT, only mappings are walked (not lists) and only text and template extensions are read.
 * Problems are collected with their YAML path; the value is then left as it was.
 */
export function resolveFileReferences(
  plain: unknown,
  file: string,
  problems: { loc: (string | number)[]; message: string }[],
  loc: (string | number)[] = [],
): unknown {
  if (!isMapping(plain)) return plain;
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain)) {
    if (isMapping(value)) resolved[key] = resolveFileReferences(value, file, problems, [...loc, key]);
    else if (typeof value === 'string' && value.startsWith(PREFIX)) {
      resolved[key] = readReference(value.slice(PREFIX.length), file, [...loc, key], problems) ?? value;
    } else resolved[key] = value;
  }
  return resolved;
}

function readReference(
  path: string,
  file: string,
  loc: (string | number)[],
  problems: { loc: (string | number)[]; message: string }[],
): string | undefined {
  let target = isAbsolute(path) ? path : resolve(dirname(file), path);
  try {
    // The link's target is what is read, so its extension is the one checked (as NAT does).
    target = realpathSync(target);
  } catch {
    // missing: reported below
  }
  const extension = extname(target).toLowerCase();
  if (!ALLOWED_EXTENSIONS.has(extension)) {
    problems.push({
      loc,
      message: `file:// may name only ${[...ALLOWED_EXTENSIONS].join(', ')} files (got "${extension || 'no extension'}")`,
    });
    return undefined;
  }
  try {
    return readFileSync(target, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    problems.push({ loc, message: `file:// cannot read ${target}: ${reason}` });
    return undefined;
  }
}
