import { isJsonObject } from '../core/validation/json-object';

/**
 * What a message's parts say, as sent, that the SDK's decoding (`@a2a-js/sdk` 1.3, generated from the
 * protocol's proto) would misread rather than refuse: it throws on a part that is null and on `raw`
 * that is no string (answered as -32603 Internal error with the exception's text), reads a part that is
 * no object as an empty one, decodes `raw` with Node's lenient base64 (what is not base64 is skipped:
 * corrupt bytes arrive as fewer bytes, or none), and makes `String(x)` of any other value (a `text` or
 * `filename` object arrives as "[object Object]").
 */

/** The string fields of a part: set (not null), each must be a string. */
const STRING_FIELDS = ['text', 'url', 'filename', 'mediaType', 'media_type'] as const;

/**
 * Base64 as proto3's JSON mapping reads `bytes`: the standard or the URL-safe alphabet, padded or not.
 * Four characters make three bytes; a lone character left over makes none, so it is not base64.
 */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function base64(text: string): boolean {
  if (!BASE64.test(text)) return false;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return false;
  return text.length === unpadded.length || text.length % 4 === 0;
}

/** The first problem of one part (index `i`), in words a client can act on; undefined: none. */
function partProblem(part: unknown, i: number): string | undefined {
  if (!isJsonObject(part)) return `Part ${i} is not an object`;
  const fields = part;
  for (const field of STRING_FIELDS) {
    const value = fields[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      return `Part ${i}: ${field} is not a string`;
    }
  }
  const { raw } = fields;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || !base64(raw)) return `Part ${i}: raw is not a base64 string`;
  return undefined;
}

/** The first problem of `parts` (a message's, as sent); undefined when there is none or no list. */
export function sentPartsProblem(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const problem = partProblem(parts[i], i);
    if (problem) return problem;
  }
  return undefined;
}
