import { aPrompt, options } from '../../test/utils/builders';
import {
  AnswerMismatch,
  DEFAULT_PROMPT_ERROR,
  normalizeAnswer,
  promptProblems,
  toPrompt,
  type Prompt,
  type PromptConfig,
} from './prompts';

/** The message an answer is refused with (fails the test when it is accepted). */
function refusal(prompt: Prompt, raw: unknown): string {
  try {
    normalizeAnswer(prompt, raw);
  } catch (err) {
    if (err instanceof AnswerMismatch) return err.message;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

const [A, B, C] = options('a', 'b', 'c');

describe('answers of every shape that is not an answer are refused, saying why', () => {
  it.each([
    ['null', null, 'response must be an object'],
    ['a list', [{ type: 'text', text: 'x' }], 'response must be an object'],
    ['a string', 'yes', 'response must be an object'],
    ['no discriminator', { text: 'x' }, 'response needs a "type" (expected "text")'],
    ['a numeric discriminator', { type: 1, text: 'x' }, 'response needs a "type" (expected "text")'],
    ['another prompt type', { type: 'radio', selected_option: A }, 'expected a "text" response, got "radio"'],
    ['an unknown type', { type: 'essay', text: 'x' }, 'expected a "text" response, got "essay"'],
  ])('%s', (_what, raw, message) => {
    expect(refusal(aPrompt('text'), raw)).toBe(message);
  });

  it('`type` wins over `input_type` when both are sent (NAT reads `type`)', () => {
    expect(normalizeAnswer(aPrompt('text'), { type: 'text', input_type: 'radio', text: 'x' })).toEqual({
      type: 'text',
      text: 'x',
    });
  });
});

describe('text prompts', () => {
  it.each(['type', 'input_type'])('take {%s: "text", text}', (key) => {
    expect(normalizeAnswer(aPrompt('text'), { [key]: 'text', text: ' Ada ' })).toEqual({
      type: 'text',
      text: ' Ada ',
    });
  });

  it('refuse a missing or non-string text, and a blank one when required', () => {
    expect(refusal(aPrompt('text'), { type: 'text' })).toBe('a text response needs a "text" string');
    expect(refusal(aPrompt('text'), { type: 'text', text: 42 })).toBe(
      'a text response needs a "text" string',
    );
    expect(refusal(aPrompt('text'), { type: 'text', text: ' \n' })).toBe(
      'this prompt requires a non-empty text',
    );
  });

  it('take a blank text when not required', () => {
    expect(normalizeAnswer(aPrompt('text', { required: false }), { type: 'text', text: '' })).toEqual({
      type: 'text',
      text: '',
    });
  });
});

describe('notifications', () => {
  it('take {type: "notification"} and nothing else is needed', () => {
    expect(normalizeAnswer(aPrompt('notification'), { type: 'notification', extra: 1 })).toEqual({
      type: 'notification',
    });
  });
});

describe.each(['binary_choice', 'radio', 'dropdown'] as const)('%s prompts', (type) => {
  const prompt = aPrompt(type);
  const [first, second] = prompt.options!;

  it('take the option by id alone, and answer the whole option', () => {
    expect(normalizeAnswer(prompt, { type, selected_option: { id: second.id } })).toEqual({
      type,
      selected_option: second,
    });
  });

  it('take the option by value when no id is sent', () => {
    expect(normalizeAnswer(prompt, { input_type: type, selected_option: { value: first.value } })).toEqual({
      type,
      selected_option: first,
    });
  });

  it('go by the id when one is sent: a wrong id is refused even with a matching value or label', () => {
    const ids = prompt.options!.map((o) => `"${o.id}"`).join(', ');
    expect(
      refusal(prompt, { type, selected_option: { id: 'zz', value: first.value, label: first.label } }),
    ).toBe(`selected option "zz" is not one of the prompt's options (${ids})`);
  });

  it('refuse an option named by its label alone', () => {
    expect(refusal(prompt, { type, selected_option: { label: first.label } })).toMatch(
      /is not one of the prompt's options/,
    );
  });

  it('refuse a missing selected_option, or one that is not an object', () => {
    expect(refusal(prompt, { type })).toBe(`a ${type} response needs "selected_option"`);
    expect(refusal(prompt, { type, selected_option: first.id })).toBe(
      'each selected option must be an object',
    );
    expect(refusal(prompt, { type, selected_option: [first] })).toBe(
      'each selected option must be an object',
    );
  });

  it('refuse free text unless allow_free_text; with it, take text alone or beside the option', () => {
    expect(refusal(prompt, { type: 'text', text: 'other' })).toBe(
      `expected a "${type}" response; this prompt does not accept free text`,
    );
    const open = { ...prompt, allow_free_text: true };
    expect(normalizeAnswer(open, { type: 'text', text: 'other' })).toEqual({ type: 'text', text: 'other' });
    expect(refusal(open, { type: 'text' })).toBe('a text response needs a "text" string');
    expect(normalizeAnswer(open, { type, selected_option: { id: first.id }, text: 'why' })).toEqual({
      type,
      selected_option: first,
      text: 'why',
    });
    // without allow_free_text, a text beside the option is dropped rather than passed on
    expect(normalizeAnswer(prompt, { type, selected_option: { id: first.id }, text: 'why' })).toEqual({
      type,
      selected_option: first,
    });
  });

  it('take edited_args (the replacement arguments of an approval) as an object, and nothing else', () => {
    const edited = { body: { title: 'edited' } };
    expect(normalizeAnswer(prompt, { type, selected_option: { id: first.id }, edited_args: edited })).toEqual(
      {
        type,
        selected_option: first,
        edited_args: edited,
      },
    );
    for (const bad of [null, 'x', 3, [1]]) {
      expect(refusal(prompt, { type, selected_option: { id: first.id }, edited_args: bad })).toBe(
        '"edited_args" must be an object (the replacement arguments)',
      );
    }
  });
});

describe('checkbox prompts', () => {
  const prompt = aPrompt('checkbox');

  it('take selected_options, in the order sent', () => {
    expect(
      normalizeAnswer(prompt, { type: 'checkbox', selected_options: [{ id: 'c' }, { value: 'va' }] }),
    ).toEqual({
      type: 'checkbox',
      selected_options: [C, A],
    });
  });

  it("take NAT's one selected_option as a one-item selection", () => {
    expect(
      normalizeAnswer(prompt, { input_type: 'checkbox', selected_option: { id: 'b', label: 'B' } }),
    ).toEqual({
      type: 'checkbox',
      selected_options: [B],
    });
  });

  it('take selected_option as a list', () => {
    expect(
      normalizeAnswer(prompt, { type: 'checkbox', selected_option: [{ id: 'a' }, { id: 'b' }] }),
    ).toEqual({
      type: 'checkbox',
      selected_options: [A, B],
    });
  });

  it('prefer selected_options when both are sent', () => {
    expect(
      normalizeAnswer(prompt, {
        type: 'checkbox',
        selected_options: [{ id: 'a' }],
        selected_option: { id: 'b' },
      }),
    ).toEqual({ type: 'checkbox', selected_options: [A] });
  });

  it('refuse no list, an empty list when required, and an option not in the prompt', () => {
    const list = 'a checkbox response needs "selected_options": a list of options';
    expect(refusal(prompt, { type: 'checkbox' })).toBe(list);
    expect(refusal(prompt, { type: 'checkbox', selected_options: 'a' })).toBe(list);
    expect(refusal(prompt, { type: 'checkbox', selected_option: 'a' })).toBe(list);
    expect(refusal(prompt, { type: 'checkbox', selected_options: [] })).toBe(
      'this prompt requires at least one option',
    );
    expect(refusal(prompt, { type: 'checkbox', selected_options: [{ id: 'a' }, { id: 'z' }] })).toBe(
      `selected option "z" is not one of the prompt's options ("a", "b", "c")`,
    );
    expect(refusal(prompt, { type: 'checkbox', selected_options: ['a'] })).toBe(
      'each selected option must be an object',
    );
  });

  it('take an empty selection when not required', () => {
    expect(
      normalizeAnswer({ ...prompt, required: false }, { type: 'checkbox', selected_options: [] }),
    ).toEqual({
      type: 'checkbox',
      selected_options: [],
    });
  });
});

describe('cancel answers', () => {
  it.each(['text', 'radio', 'checkbox'] as const)(
    'a %s prompt takes {type: "cancel"} only with allow_cancel',
    (type) => {
      expect(refusal(aPrompt(type), { type: 'cancel' })).toBe(
        'this prompt cannot be cancelled (allow_cancel is not set)',
      );
      expect(normalizeAnswer(aPrompt(type, { allow_cancel: true }), { type: 'cancel' })).toEqual({
        type: 'cancel',
      });
    },
  );
});

describe('prompts as configured', () => {
  const config = (overrides: Partial<PromptConfig>): PromptConfig =>
    Object.assign(new (class {})() as PromptConfig, { input_type: 'text', text: 'Q?', ...overrides });

  it("get NAT's defaults on the wire", () => {
    expect(toPrompt(config({}))).toEqual({
      input_type: 'text',
      text: 'Q?',
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
      placeholder: null,
      required: true,
    });
    expect(toPrompt(config({ input_type: 'notification' }))).toEqual({
      input_type: 'notification',
      text: 'Q?',
      timeout: null,
      error: DEFAULT_PROMPT_ERROR,
    });
    expect(toPrompt(config({ input_type: 'radio', options: [A], timeout: 5, allow_cancel: true }))).toEqual({
      input_type: 'radio',
      text: 'Q?',
      timeout: 5,
      error: DEFAULT_PROMPT_ERROR,
      options: [A],
      required: true,
      allow_cancel: true,
    });
  });

  it('are refused with options on a non-choice prompt, a binary choice without two, or a repeated id', () => {
    expect(promptProblems(config({ options: [A] }))).toEqual([
      { field: 'options', message: 'a text prompt takes no options' },
    ]);
    expect(promptProblems(config({ input_type: 'binary_choice', options: [A, B, C] }))).toEqual([
      { field: 'options', message: 'a binary_choice prompt needs exactly two options, not 3' },
    ]);
    expect(promptProblems(config({ input_type: 'radio', options: [A, { ...B, id: 'a' }] }))).toEqual([
      { field: 'options', message: 'option id "a" is used twice' },
    ]);
    expect(promptProblems(config({ input_type: 'radio', options: [A, B] }))).toEqual([]);
  });
});
