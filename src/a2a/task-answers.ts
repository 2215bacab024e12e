import type { Message } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { AnswerMismatch, type Prompt, type PromptOption } from '../runtime/prompts';
import { answerFromText } from '../runtime/text-answer';
import { messageData, messageText } from './a2a-parts';

type Data = Record<string, unknown>;

const isData = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The option an approval picks: a yes/no prompt's first or second option, else the one named yes or no. */
function approval(prompt: Prompt, approved: boolean): PromptOption {
  const options = prompt.options ?? [];
  const named = options.find((o) => o.id === (approved ? 'yes' : 'no'));
  const option = named ?? (prompt.input_type === 'binary_choice' ? options[approved ? 0 : 1] : undefined);
  if (!option) throw new AnswerMismatch('"approved" answers a yes/no question; this prompt is not one');
  return option;
}

/**
 * The answer a client's message gives to the task's open prompt, in the shape every face hands the
 * engine (which checks it against the prompt): a data part `{selected_option_id}`,
 * `{selected_option_ids}` or `{approved}` (or a NAT answer as the HTTP face takes it), else the
 * message's text: free text for a text prompt, an option by label, value or id for the others.
 */
export function answerOf(prompt: Prompt, message: Message): Data {
  const file = message.parts.findIndex((p) => p.content?.$case === 'raw');
  if (file >= 0)
    throw new ContentTypeNotSupportedError(`Part ${file} is a file: an answer takes text and data parts`);
  const data = messageData(message).find(isData);
  const type = prompt.input_type;
  if (data?.selected_option_id !== undefined) {
    return { type, selected_option: { id: String(data.selected_option_id) } };
  }
  if (Array.isArray(data?.selected_option_ids)) {
    return { type, selected_options: data.selected_option_ids.map((id) => ({ id: String(id) })) };
  }
  if (typeof data?.approved === 'boolean') {
    const option = approval(prompt, data.approved);
    return { type, selected_option: { id: option.id } };
  }
  if (data && (data.type !== undefined || data.input_type !== undefined)) return data;
  return answerFromText(prompt, messageText(message));
}
