import { AnswerMismatch, normalizeAnswer, type Prompt } from './prompts';
import { answerFromText } from './text-answer';

const options = [
  { id: 'email', label: 'Email', value: 'mail' },
  { id: 'sms', label: 'Text message', value: 'sms' },
  { id: 'push', label: 'Push, now', value: 'push' },
];
const prompt = (input_type: Prompt['input_type'], extra: Partial<Prompt> = {}): Prompt => ({
  input_type,
  text: 'How?',
  timeout: null,
  error: 'gone',
  options: input_type === 'text' ? undefined : options,
  ...extra,
});
const answer = (p: Prompt, text: string) => normalizeAnswer(p, answerFromText(p, text));

describe('answerFromText: a WebSocket reply as a prompt answer', () => {
  it('text prompts take the text as it is', () => {
    expect(answer(prompt('text'), '  the board ')).toEqual({ type: 'text', text: '  the board ' });
  });

  it.each(['radio', 'dropdown', 'binary_choice'] as const)(
    '%s: an option by id, value or label, any case',
    (type) => {
      const p = prompt(type);
      expect(answer(p, 'email')).toMatchObject({ selected_option: options[0] });
      expect(answer(p, 'mail')).toMatchObject({ selected_option: options[0] });
      expect(answer(p, ' text MESSAGE ')).toMatchObject({ selected_option: options[1] });
    },
  );

  it('a text naming no option is refused, listing the values; free text where the prompt allows it', () => {
    expect(() => answerFromText(prompt('radio'), 'fax')).toThrow(AnswerMismatch);
    expect(() => answerFromText(prompt('radio'), 'fax')).toThrow(
      '"fax" is not one of the options; choose one of "mail", "sms", "push"',
    );
    expect(answer(prompt('radio', { allow_free_text: true }), 'fax')).toEqual({ type: 'text', text: 'fax' });
  });

  it('checkbox: several, comma-separated; a label with a comma is matched whole first', () => {
    expect(answer(prompt('checkbox'), 'email, SMS')).toMatchObject({
      selected_options: [options[0], options[1]],
    });
    expect(answer(prompt('checkbox'), 'Push, now')).toMatchObject({ selected_options: [options[2]] });
    expect(() => answerFromText(prompt('checkbox'), 'email, fax, pigeon')).toThrow(
      '"fax", "pigeon" are not options',
    );
  });

  it('an empty checkbox reply is refused when an option is required', () => {
    expect(() => answer(prompt('checkbox'), '')).toThrow('this prompt requires at least one option');
  });
});
