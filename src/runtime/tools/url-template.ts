import { renderTemplate, templateNames } from '../template';
import { ToolInputError } from './json-schema';

/** Whether a `{{placeholder}}` sits in the scheme or the host of a URL template (it would choose the server). */
export function placeholderInHost(template: string): boolean {
  const scheme = template.indexOf('://');
  if (scheme < 0) return templateNames(template).length > 0;
  const rest = template.slice(scheme + 3);
  const end = [...'/?#'].map((c) => rest.indexOf(c)).filter((i) => i >= 0);
  const authority = end.length ? rest.slice(0, Math.min(...end)) : rest;
  return templateNames(template.slice(0, scheme + 3) + authority).length > 0;
}

/** The value as a server might read it: percent-decoded until it no longer changes (a few rounds). */
function decoded(value: string): string {
  let current = value;
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

function pathValue(text: string): string {
  const segments = decoded(text).split(/[/\\]/);
  if (segments.some((s) => s === '.' || s === '..')) {
    throw new ToolInputError(`a URL path argument may not be "." or ".." nor hold such a segment: "${text}"`);
  }
  return encodeURIComponent(text);
}

/**
 * A URL from its template: every value URL-encoded, so none adds a path segment, a query or a host; a
 * value in the path that is or holds `.` / `..` (also percent-encoded) is refused, since URL parsers and
 * servers resolve those and would leave the configured path.
 */
export function fillUrl(template: string, values: Record<string, unknown>): string {
  const cut = [template.indexOf('?'), template.indexOf('#')].filter((i) => i >= 0);
  const split = cut.length ? Math.min(...cut) : template.length;
  return (
    renderTemplate(template.slice(0, split), values, pathValue) +
    renderTemplate(template.slice(split), values, encodeURIComponent)
  );
}
