import type { Message, Part } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { validatePlain } from '../core/validation/validation-issues';
import type { ContentPart } from '../runtime/chat-input';
import type { BuiltFunction } from '../runtime/function-type';
import { imagePart, imageUrlProblem } from '../runtime/attachments';
import { defaultFilename, fileDataProblem, filenameProblem, filePart, typeEssence } from '../runtime/files';
import { isJsonObject } from '../core/validation/json-object';
import { jsonDepth } from '../core/validation/validation-issues';

/** How deep a data part's JSON may nest (objects and lists), past which the message is refused. */
export const MAX_DATA_DEPTH = 32;

/**
 * What a message that starts a task gives the workflow. `text`: its text parts and each data part as
 * JSON, in the message's order, one per line (what a chat workflow reads as the user's message, and
 * what the context remembers). `structured`: a workflow that takes fields (not a chat) and a message of
 * one data part holding an object, checked against those fields: the workflow's input itself.
 */
export interface MessageInput {
  text: string;
  /** The message as chat parts, when it carries images or files (in the message's order). */
  content?: ContentPart[];
  structured?: Record<string, unknown>;
}

/**
 * Refuses what no workflow can read, before anything starts: a file part by URL (the server fetches no
 * URL a client names), an empty part, and data nested deeper than MAX_DATA_DEPTH. Applies to every
 * message, an answer to a question included. Whether this workflow reads a file's type is messageInput's
 * to check.
 */
export function checkParts(message: Message): void {
  message.parts.forEach((part, i) => {
    const content = part.content;
    if (!content) throw new RequestMalformedError(`Part ${i} has no text, data, raw or url content`);
    if (content.$case === 'url') throw fileRefused(part, i);
    if (content.$case === 'data' && jsonDepth(content.value, MAX_DATA_DEPTH) > MAX_DATA_DEPTH)
      throw new RequestMalformedError(`Part ${i}: data nested deeper than ${MAX_DATA_DEPTH} levels`);
  });
}

/**
 * The workflow's input for a message that starts a task (its parts already checked). A message with
 * files (raw file parts: images, and documents of the accepted types) is a chat message of its text and
 * files, for a workflow that reads them.
 */
export function messageInput(message: Message, workflow: BuiltFunction): MessageInput {
  const images = attachmentsOf(message, workflow);
  const text = message.parts
    .map((p) => (p.content?.$case === 'data' ? JSON.stringify(p.content.value) : textOf(p)))
    .filter((t): t is string => t !== undefined)
    .join('\n');
  if (images) return { text, content: images };
  const [only] = message.parts;
  const value = message.parts.length === 1 && only.content?.$case === 'data' ? only.content.value : undefined;
  if (workflow.input.kind !== 'schema' || !isJsonObject(value)) return { text };
  const checked = validatePlain(workflow.input.dto, value, ['data']);
  if (!checked.ok) {
    const issues = checked.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
    throw new RequestMalformedError(`The data part is not this workflow's input: ${issues}`);
  }
  return { text, structured: value };
}

const isImage = (part: Part) => part.mediaType.toLowerCase().startsWith('image/');

/**
 * The message's parts as chat parts (text, data as JSON text, images and files), checked against the
 * workflow's limits; undefined without a file part.
 */
function attachmentsOf(message: Message, workflow: BuiltFunction): ContentPart[] | undefined {
  if (!message.parts.some((p) => p.content?.$case === 'raw')) return undefined;
  if ((!workflow.images && !workflow.files) || workflow.input.kind !== 'schema') {
    throw new ContentTypeNotSupportedError(
      'This agent reads no images or files: send text and data parts only',
    );
  }
  return message.parts.flatMap((part, i): ContentPart[] => {
    const content = part.content;
    if (content?.$case === 'text') return [{ type: 'text', text: content.value }];
    if (content?.$case === 'data') return [{ type: 'text', text: JSON.stringify(content.value) }];
    if (content?.$case !== 'raw') return [];
    return [
      isImage(part) ? imageOf(part, content.value, i, workflow) : fileOf(part, content.value, i, workflow),
    ];
  });
}

function imageOf(part: Part, bytes: Uint8Array, i: number, workflow: BuiltFunction): ContentPart {
  if (!workflow.images)
    throw new ContentTypeNotSupportedError(`Part ${i}${named(part)}: this agent reads no images`);
  const image = imagePart(part.mediaType.toLowerCase(), bytes);
  const problem = imageUrlProblem((image.image_url as { url: string }).url, workflow.images);
  if (!problem) return image;
  throw problem.startsWith('image type')
    ? new ContentTypeNotSupportedError(`Part ${i}${named(part)}: ${problem}`)
    : new RequestMalformedError(`Part ${i}${named(part)}: ${problem}`);
}

/** A document as OpenAI's `file` part; its bytes are handed on, never read here. */
function fileOf(part: Part, bytes: Uint8Array, i: number, workflow: BuiltFunction): ContentPart {
  const type = typeEssence(part.mediaType);
  const limits = workflow.files;
  if (!limits || !limits.types.includes(type)) {
    const accepted = limits ? `accepted: ${limits.types.join(', ')}` : 'this agent reads no files';
    throw new ContentTypeNotSupportedError(
      `Part ${i}${named(part)}: file type ${JSON.stringify(type.slice(0, 100))} is not accepted (${accepted})`,
    );
  }
  if (bytes.length > limits.maxBytes)
    throw new RequestMalformedError(
      `Part ${i}${named(part)}: file is ${bytes.length} bytes, over the limit of ${limits.maxBytes}`,
    );
  const badName = part.filename ? filenameProblem(part.filename) : undefined;
  if (badName) throw new RequestMalformedError(`Part ${i}: ${badName}`);
  const file = filePart(type, bytes, part.filename || defaultFilename(type, i));
  // The same checks the chat faces make on a file's data: URL (type, size, base64).
  const problem = fileDataProblem((file.file as { file_data: string }).file_data, limits);
  if (problem) throw new RequestMalformedError(`Part ${i}${named(part)}: ${problem}`);
  return file;
}

/** ` (<filename>)` when the part names one that is fit to quote in an error, else nothing. */
function named(part: Part): string {
  return part.filename && !filenameProblem(part.filename) ? ` (${part.filename})` : '';
}

function textOf(part: Part): string | undefined {
  return part.content?.$case === 'text' ? part.content.value : undefined;
}

function fileRefused(part: Part, index: number): ContentTypeNotSupportedError {
  const what = [part.mediaType || 'no media type', part.filename].filter(Boolean).join(', ');
  return new ContentTypeNotSupportedError(
    `Part ${index} is a file (${what}): this agent accepts text and data parts, and files as inline bytes (no URL)`,
  );
}
