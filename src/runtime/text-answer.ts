import { AnswerMismatch, type Prompt, type PromptOption } from './prompts';

function optionFor(prompt: Prompt, given: string): PromptOption | undefined {
  const options = prompt.options ?? [];
  const exact = options.find((o) => o.id === given || o.value === given || o.label === given);
  if (exact) return exact;
  const loose = given.trim().toLowerCase();
  return options.find((o) => [o.id, o.value, o.label].some((s) => s.trim().toLowerCase() === loose));
}

function choices(prompt: Prompt): string {
  return (prompt.options ?? []).map((o) => `"${o.value}"`).join(', ');
}

/**
 * Turns the text of a reply (a WebSocket message, an A2A text part) into an answer for
 * `normalizeAnswer`. For choice prompts the text names an option by id, value or label (a checkbox
 * takes several, comma-separated); text that names none is free text where the prompt allows it,
 * otherwise an AnswerMismatch.
 */
export function answerFromText(prompt: Prompt, text: string): Record<string, unknown> {
  switch (prompt.input_type) {
    case 'text':
      return { type: 'text', text };
    case 'notification':
      return { type: 'notification' };
    case 'checkbox': {
      const whole = optionFor(prompt, text);
      const parts = whole ? [text] : text.split(',').filter((p) => p.trim() !== '');
      const picked = parts.map((p) => ({ part: p.trim(), option: optionFor(prompt, p) }));
      const missing = picked.filter((p) => !p.option).map((p) => `"${p.part}"`);
      if (missing.length === 0) {
        return { type: 'checkbox', selected_options: picked.map((p) => ({ id: p.option!.id })) };
      }
      if (prompt.allow_free_text) return { type: 'text', text };
      throw new AnswerMismatch(
        `${missing.join(', ')} ${missing.length === 1 ? 'is not an option' : 'are not options'}; ` +
          `choose from ${choices(prompt)} (several separated by commas)`,
      );
    }
    default: {
      const option = optionFor(prompt, text);
      if (option) return { type: prompt.input_type, selected_option: { id: option.id } };
      if (prompt.allow_free_text) return { type: 'text', text };
      throw new AnswerMismatch(`"${text}" is not one of the options; choose one of ${choices(prompt)}`);
    }
  }
}
