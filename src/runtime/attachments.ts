import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { inlineData } from './data-url';
import type { ChatMessage, ContentPart } from './chat-input';
import { filePartProblem, type FileLimits } from './files';

/** The image types a chat may carry (what OpenAI-compatible vision models take). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** What a workflow that reads images accepts (`general.front_end.attachments`). */
export interface ImageLimits {
  types: string[];
  /** Decoded bytes of one image. */
  maxBytes: number;
}

/** An image as a chat part (NAT's ImageContent, OpenAI's image_url part), inline as a data: URL. */
export function imagePart(mediaType: string, bytes: Uint8Array): ContentPart {
  return {
    type: 'image_url',
    image_url: { url: `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}` },
  };
}

/** The first bytes each accepted type starts with: a part is checked by its content, not its label. */
function startsAs(type: string, head: Buffer): boolean {
  switch (type) {
    case 'image/png':
      return head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case 'image/gif':
      return head.subarray(0, 4).toString('latin1') === 'GIF8';
    case 'image/webp':
      return (
        head.subarray(0, 4).toString('latin1') === 'RIFF' &&
        head.subarray(8, 12).toString('latin1') === 'WEBP'
      );
    default:
      return false;
  }
}

/** Why one image URL is refused, or undefined when it is a data: URL of an accepted type and size. */
export function imageUrlProblem(url: string, limits: ImageLimits): string | undefined {
  const checked = inlineData(url, limits, { noun: 'image', example: 'image/png' });
  if ('problem' in checked) return checked.problem;
  const { type, data } = checked;
  if (!startsAs(type, Buffer.from(data.slice(0, 16), 'base64'))) return `the data is not a ${type} image`;
  return undefined;
}

/** What a workflow reads beside text (`BuiltFunction.images` and `files`): undefined, none of the kind. */
export interface AttachmentLimits {
  images?: ImageLimits;
  files?: FileLimits;
}

/**
 * What is wrong with the attachments of a chat, located under `loc` (`[..., 'messages']`): images or
 * files where the workflow reads none, on a message that is not the user's, remote, malformed, of a type
 * not accepted or too big; and parts that are neither text, image nor file (audio).
 */
export function attachmentIssues(
  messages: readonly ChatMessage[],
  limits: AttachmentLimits,
  loc: (string | number)[],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  messages.forEach((message, i) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, j) => {
      if (part.type === 'text') return;
      const at = [...loc, i, 'content', j];
      const issue = (msg: string, where = at): void => {
        issues.push({ type: 'value_error', loc: where, msg, input: part.type });
      };
      if (part.type === 'file') {
        if (!limits.files) return issue('this workflow reads no files: send text only');
        if (message.role !== 'user') return issue('files are accepted on user messages only');
        const problem = filePartProblem(part, limits.files);
        return problem ? issue(problem.msg, [...at, ...problem.at]) : undefined;
      }
      if (part.type !== 'image_url')
        return issue(
          `content parts of type ${JSON.stringify(part.type.slice(0, 100))} are not accepted: send text, image_url and file parts`,
        );
      if (!limits.images) return issue('this workflow reads no images: send text only');
      if (message.role !== 'user') return issue('images are accepted on user messages only');
      const url = (part.image_url as { url?: unknown } | undefined)?.url;
      if (typeof url !== 'string')
        return issue('image_url.url should be a string', [...at, 'image_url', 'url']);
      const problem = imageUrlProblem(url, limits.images);
      if (problem) issue(problem, [...at, 'image_url', 'url']);
    });
  });
  return issues;
}

/** Refuses (422, FastAPI style) a chat whose images or files the function cannot take (see attachmentIssues). */
export function checkAttachments(
  messages: readonly ChatMessage[],
  fn: AttachmentLimits,
  loc: (string | number)[],
): void {
  const issues = attachmentIssues(messages, fn, loc);
  if (issues.length) throw AppError.validation(issues);
}

/** Whether a chat carries an image or a file part. */
export function hasAttachments(messages: readonly ChatMessage[]): boolean {
  return messages.some(
    (m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image_url' || p.type === 'file'),
  );
}

/** A data: URL as an intermediate step shows it: its header and the size of its data. */
function sized(url: string): string {
  const comma = url.indexOf(',');
  const bytes = Math.floor(((url.length - comma - 1) / 4) * 3);
  return `${url.slice(0, comma + 1)}… (${bytes} bytes)`;
}

/**
 * Model messages as an intermediate step shows them: each inline image and file reduced to its type and
 * size, so a step (streamed to clients, kept in the event log) does not carry their bytes.
 */
export function withoutAttachmentData<M>(messages: M[]): M[] {
  return messages.map((m) => {
    const content = (m as { content?: unknown }).content;
    if (!Array.isArray(content)) return m;
    const parts = (content as ContentPart[]).map((p) => {
      if (p.type === 'file') {
        const file = p.file as { file_data?: unknown } | undefined;
        const data = file?.file_data;
        if (typeof data !== 'string' || !data.startsWith('data:')) return p;
        return { ...p, file: { ...file, file_data: sized(data) } };
      }
      const url = (p.image_url as { url?: unknown } | undefined)?.url;
      if (p.type !== 'image_url' || typeof url !== 'string' || !url.startsWith('data:')) return p;
      return { ...p, image_url: { ...(p.image_url as object), url: sized(url) } };
    });
    return { ...m, content: parts };
  });
}
