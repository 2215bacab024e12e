import type { ContentPart } from './chat-input';
import { inlineData } from './data-url';

/**
 * The document types a chat may carry by default (`general.front_end.attachments.file_types`): what
 * OpenAI-compatible models take as a `file` content part.
 */
export const FILE_TYPES = ['application/pdf', 'text/plain', 'text/csv', 'text/markdown', 'application/json'];

/** What a workflow that reads files accepts (`general.front_end.attachments`). */
export interface FileLimits {
  types: string[];
  /** Decoded bytes of one file. */
  maxBytes: number;
}

/** The longest file name a part may carry (characters). */
export const MAX_FILENAME_LENGTH = 255;

/** A type's name for a file part sent without one (the model's endpoint may read the extension). */
const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/markdown': 'md',
  'application/json': 'json',
};

/** A media type without its parameters (`text/plain; charset=utf-8` → `text/plain`), lower case. */
export function typeEssence(mediaType: string): string {
  return mediaType.split(';')[0].trim().toLowerCase();
}

/** The name a file part without one goes under: `attachment-<n>.<extension of its type>`. */
export function defaultFilename(type: string, index: number): string {
  const extension = EXTENSIONS[type];
  return extension ? `attachment-${index}.${extension}` : `attachment-${index}`;
}

/**
 * A file as a chat part (OpenAI's `file` content part), inline as a data: URL. The bytes are never
 * read by the server: they go to the model as they came.
 */
export function filePart(type: string, bytes: Uint8Array, filename: string): ContentPart {
  return {
    type: 'file',
    file: { file_data: `data:${type};base64,${Buffer.from(bytes).toString('base64')}`, filename },
  };
}

/**
 * Why a file name is refused, or undefined: it is client input that reaches the model (and its
 * endpoint's logs), so it is bounded and holds no control characters.
 */
export function filenameProblem(filename: string): string | undefined {
  if (filename.length === 0) return 'the file name is empty';
  if (filename.length > MAX_FILENAME_LENGTH)
    return `the file name is ${filename.length} characters, over the limit of ${MAX_FILENAME_LENGTH}`;
  // C0, DEL and C1 controls, and the line and paragraph separators.
  for (const ch of filename) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029)
      return 'the file name holds a control character';
  }
  return undefined;
}

/**
 * Why one file's data is refused, or undefined when it is a base64 data: URL of an accepted type and
 * size. A type not accepted starts with "file type" (the A2A face answers it as an unsupported content
 * type).
 */
export function fileDataProblem(data: string, limits: FileLimits): string | undefined {
  // Neither an uploaded file's id nor a URL: the server fetches nothing a client names (SSRF).
  const checked = inlineData(data, limits, { noun: 'file', example: 'application/pdf' });
  return 'problem' in checked ? checked.problem : undefined;
}

/** Why a chat's `file` part is refused, or undefined; `at` locates the problem under the part. */
export function filePartProblem(
  part: ContentPart,
  limits: FileLimits,
): { msg: string; at: string[] } | undefined {
  const file = part.file as { file_data?: unknown; file_id?: unknown; filename?: unknown } | undefined;
  if (typeof file !== 'object' || file === null) return { msg: 'file should be an object', at: ['file'] };
  if (typeof file.file_data !== 'string') {
    // A file_id names a file uploaded to the model's provider: this server holds none.
    return { msg: 'file.file_data should be a data: URL string', at: ['file', 'file_data'] };
  }
  const problem = fileDataProblem(file.file_data, limits);
  if (problem) return { msg: problem, at: ['file', 'file_data'] };
  if (file.filename === undefined) return undefined;
  if (typeof file.filename !== 'string')
    return { msg: 'file.filename should be a string', at: ['file', 'filename'] };
  const named = filenameProblem(file.filename);
  return named ? { msg: named, at: ['file', 'filename'] } : undefined;
}
