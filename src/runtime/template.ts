/**
 * The `{{name}}` / `{{name.field}}` templates of the scripted workflow. A value renders as text:
 * strings as they are, lists joined by ", ", anything else as JSON.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;

export function templateNames(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1].split('.')[0]);
}

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let value: unknown = vars;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(renderValue).join(', ');
  if (typeof value === 'object' && 'toString' in value && value.toString !== Object.prototype.toString) {
    return String(value);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The template with its placeholders filled; `encode` (e.g. for a URL) applies to each value's text. */
export function renderTemplate(
  template: string,
  vars: Record<string, unknown>,
  encode: (text: string) => string = (text) => text,
): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => encode(renderValue(lookup(vars, path))));
}

/** Renders every string inside a JSON-like value (step inputs and payloads may quote the input too). */
export function renderDeep(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') return renderTemplate(value, vars);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, vars)]));
  }
  return value;
}
