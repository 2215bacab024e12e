import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { imageUrlProblem, type AttachmentLimits } from '../runtime/attachments';
import type { ChatMessage, ContentPart } from '../runtime/chat-input';
import { filePartProblem } from '../runtime/files';
import type { InputItem } from './response-request';

/** The content parts that are text (`output_text` and `text` come back from earlier answers). */
const TEXT_PARTS = ['input_text', 'output_text', 'text'];

/** A Responses content part as the chat part the chat faces take: text, `image_url` or `file`. */
function chatPartOf(part: ContentPart): ContentPart {
  if (TEXT_PARTS.includes(part.type)) return { type: 'text', text: part.text };
  if (part.type === 'refusal') return { type: 'text', text: String(part.refusal ?? '') };
  // `detail` is not passed on: the chat faces' image part reaches the model as its URL alone.
  if (part.type === 'input_image') return { type: 'image_url', image_url: { url: part.image_url } };
  if (part.type === 'input_file') {
    const filename = part.filename === undefined || part.filename === null ? {} : { filename: part.filename };
    return { type: 'file', file: { file_data: part.file_data, ...filename } };
  }
  return part;
}

/**
 * The input's messages as the chat a workflow takes. `attachments`: with their images and files (the
 * input of this response); without, their text only (the conversation kept for the responses after
 * it, as A2A keeps a context: images and files are not carried on).
 */
export function chatMessagesOf(items: readonly InputItem[], attachments = false): ChatMessage[] {
  return items.flatMap((item): ChatMessage[] => {
    if (item.type !== 'message') return [];
    const parts = item.content.map(chatPartOf);
    const text = parts
      .filter((p) => p.type === 'text' && typeof p.text === 'string')
      .map((p) => p.text)
      .join('');
    const attached = attachments && parts.some((p) => p.type !== 'text');
    return [{ role: item.role, content: attached ? parts : text }];
  });
}

type Problem = { msg: string; at: string[] } | undefined;

/** Why an `input_image` or `input_file` part is refused (the chat faces' rules), or undefined. */
function attachmentProblem(part: ContentPart, role: string, limits: AttachmentLimits): Problem {
  const image = part.type === 'input_image';
  const noun = image ? 'image' : 'file';
  if (!(image ? limits.images : limits.files))
    return { msg: `this workflow reads no ${noun}s: send text only`, at: [] };
  if (role !== 'user') return { msg: `${noun}s are accepted on user messages only`, at: [] };
  const inline = image ? 'the image as a data: URL in image_url' : 'the file as a data: URL in file_data';
  // The server holds no uploaded files and fetches no URL a client names (SSRF): the bytes come inline.
  for (const field of image ? ['file_id'] : ['file_id', 'file_url']) {
    if (part[field] !== undefined && part[field] !== null)
      return { msg: `${field} is not accepted: send ${inline}`, at: [field] };
  }
  if (image) {
    if (typeof part.image_url !== 'string')
      return { msg: `image_url is required: send ${inline}`, at: ['image_url'] };
    const problem = imageUrlProblem(part.image_url, limits.images!);
    return problem ? { msg: problem, at: ['image_url'] } : undefined;
  }
  const problem = filePartProblem(chatPartOf(part), limits.files!);
  return problem && { msg: problem.msg.replace(/^file\./, ''), at: problem.at.slice(1) };
}

/**
 * Refuses (400 in OpenAI's shape, naming the part) what the workflow cannot take, before anything
 * runs: an image or a file where it reads none, by `file_id` or URL, of a type not accepted, too big
 * or malformed, on a message that is not the user's, beside a `function_call_output` (that input only
 * answers a call), and any part that is neither text, an image nor a file. Nothing is dropped.
 */
export function checkInputContent(items: readonly InputItem[], limits: AttachmentLimits): void {
  const answering = items.some((i) => i.type === 'function_call_output');
  const issues: ValidationIssue[] = [];
  items.forEach((item, i) => {
    if (item.type !== 'message') return;
    item.content.forEach((part, j) => {
      let problem: Problem;
      if (TEXT_PARTS.includes(part.type) || part.type === 'refusal') return;
      if (part.type !== 'input_image' && part.type !== 'input_file') {
        const type = JSON.stringify(part.type.slice(0, 100));
        problem = {
          msg: `content parts of type ${type} are not accepted: send input_text, input_image and input_file parts`,
          at: [],
        };
      } else if (answering) {
        problem = { msg: 'an input that answers a function call takes no images or files', at: [] };
      } else problem = attachmentProblem(part, item.role, limits);
      if (problem) {
        const loc = ['body', 'input', i, 'content', j, ...problem.at];
        issues.push({ type: 'value_error', loc, msg: problem.msg, input: part.type });
      }
    });
  });
  if (issues.length > 0) throw AppError.validation(issues);
}
