import { clock, h, on, uid } from './dom';

export interface PromptOption {
  id: string;
  label: string;
  value: string;
  description?: string;
}

/** A prompt as both faces send it (the WebSocket's `content`, the HTTP status body's `prompt`). */
export interface PromptContent {
  input_type: string;
  text?: string;
  placeholder?: string | null;
  options?: PromptOption[];
  required?: boolean;
  timeout?: number | null;
  error?: string | null;
  allow_cancel?: boolean;
  allow_free_text?: boolean;
}

/** What the person chose, before it is put in either face's shape. */
export type Answer =
  | { kind: 'text'; text: string }
  | { kind: 'option'; option: PromptOption }
  | { kind: 'options'; options: PromptOption[] }
  | { kind: 'notification' }
  | { kind: 'cancel' };

export const DEFAULT_PROMPT_ERROR = 'This prompt is no longer available.';

/** What the person answered, in words, for the record left in place of the form. */
export function describeAnswer(answer: Answer): string {
  switch (answer.kind) {
    case 'text':
      return answer.text;
    case 'option':
      return answer.option.label;
    case 'options':
      return answer.options.map((o) => o.label).join(', ') || '(none)';
    case 'notification':
      return 'Acknowledged';
    case 'cancel':
      return 'Cancelled';
  }
}

/** The WebSocket reply's text: option ids name options (several comma-separated), as the server reads them. */
export function answerText(answer: Answer): string {
  switch (answer.kind) {
    case 'text':
      return answer.text;
    case 'option':
      return answer.option.id;
    case 'options':
      return answer.options.map((o) => o.id).join(',');
    default:
      return '';
  }
}

/** The HTTP face's `response` body. */
export function answerBody(prompt: PromptContent, answer: Answer): Record<string, unknown> {
  switch (answer.kind) {
    case 'text':
      return { input_type: 'text', text: answer.text };
    case 'option':
      return { input_type: prompt.input_type, selected_option: { id: answer.option.id } };
    case 'options':
      return { input_type: 'checkbox', selected_options: answer.options.map((o) => ({ id: o.id })) };
    case 'notification':
      return { input_type: 'notification' };
    case 'cancel':
      return { input_type: 'cancel' };
  }
}

export interface PromptView {
  element: HTMLElement;
  /** Moves keyboard focus to the first control. */
  focus(): void;
  /** The server no longer waits for this prompt (answered elsewhere, run ended). */
  close(note: string): void;
  /** The run went on past this prompt (an OAuth consent completes in another window). */
  passed?(): void;
}

/**
 * An answered prompt shrinks to one line, its question and the answer; the line opens the whole
 * card again (its controls stay disabled) and closes it.
 */
function collapse(form: HTMLFormElement): void {
  const toggle = h('button', { type: 'button', class: 'prompt-toggle', 'aria-expanded': 'false' }, 'Details');
  form.append(toggle);
  on(toggle, 'click', () => {
    const open = form.classList.toggle('prompt-expanded');
    toggle.setAttribute('aria-expanded', String(open));
  });
}

/**
 * A prompt as a form: its controls by input type, a countdown to its expiry, and cancel when the
 * prompt allows it. `submit` delivers the answer and resolves to an error message to show, or null.
 */
export function promptView(
  prompt: PromptContent,
  submit: (answer: Answer) => Promise<string | null>,
  /** When it stops taking an answer (epoch ms), when known; else its `timeout` from now. */
  expiresAt: number | null = null,
  now: () => number = Date.now,
): PromptView {
  const titleId = uid('prompt-title');
  const errorId = uid('prompt-error');
  const form = h('form', {
    class: `prompt prompt-${prompt.input_type}`,
    'aria-labelledby': titleId,
    'aria-describedby': errorId,
    'data-input-type': prompt.input_type,
  });
  const title = h('p', { id: titleId, class: 'prompt-text' }, prompt.text ?? '');
  const error = h('p', { id: errorId, class: 'prompt-error', role: 'alert' });
  const timer = h('p', { class: 'prompt-timer', role: 'timer', 'aria-live': 'off' });
  const body = h('div', { class: 'prompt-body' });
  const actions = h('div', { class: 'prompt-actions' });
  form.append(title, body, actions, timer, error);
  let done = false;
  let countdown: number | undefined;

  const finish = (note: string, kind: 'answered' | 'closed') => {
    done = true;
    if (countdown !== undefined) clearInterval(countdown);
    for (const el of form.querySelectorAll('input, textarea, select, button')) {
      (el as HTMLInputElement).disabled = true;
    }
    form.classList.add(`prompt-${kind}`);
    timer.textContent = '';
    const record = h('p', { class: 'prompt-outcome' }, note);
    form.append(record);
    if (kind === 'answered') collapse(form);
  };

  const send = async (answer: Answer) => {
    if (done) return;
    error.textContent = '';
    const problem = await submit(answer);
    if (problem !== null) {
      error.textContent = problem;
      return;
    }
    finish(answer.kind === 'cancel' ? 'Cancelled' : `Answered: ${describeAnswer(answer)}`, 'answered');
  };

  const collect = controls(prompt, body, actions, send);
  on(form, 'submit', (event) => {
    event.preventDefault();
    const answer = collect();
    if (typeof answer === 'string') error.textContent = answer;
    else void send(answer);
  });
  if (prompt.allow_cancel) {
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    on(cancel, 'click', () => void send({ kind: 'cancel' }));
    actions.append(cancel);
  }

  const timeout = typeof prompt.timeout === 'number' && prompt.timeout > 0 ? prompt.timeout : null;
  if (timeout !== null || expiresAt !== null) {
    const deadline = expiresAt ?? now() + (timeout ?? 0) * 1000;
    const tick = () => {
      const left = (deadline - now()) / 1000;
      if (left <= 0) {
        const at = new Date(deadline).toLocaleTimeString();
        finish(`Expired at ${at} · ${prompt.error || DEFAULT_PROMPT_ERROR}`, 'closed');
        form.querySelector('.prompt-outcome')?.setAttribute('role', 'alert');
        return;
      }
      timer.textContent = `${clock(left)} left`;
      timer.setAttribute('aria-label', `${Math.ceil(left)} seconds left to answer`);
    };
    tick();
    countdown = window.setInterval(tick, 250);
  }

  return {
    element: form,
    focus: () =>
      (form.querySelector('input, textarea, select, button:not([disabled])') as HTMLElement | null)?.focus(),
    close: (note: string) => {
      if (!done) finish(note, 'closed');
    },
  };
}

/** Builds the controls for the prompt's type; returns how to read the answer (or a problem to show). */
function controls(
  prompt: PromptContent,
  body: HTMLElement,
  actions: HTMLElement,
  send: (answer: Answer) => void,
): () => Answer | string {
  const options = prompt.options ?? [];
  const submitButton = (label: string) => h('button', { type: 'submit', class: 'primary' }, label);
  switch (prompt.input_type) {
    case 'text': {
      const id = uid('prompt-input');
      const area = h('textarea', {
        id,
        rows: 3,
        placeholder: prompt.placeholder ?? '',
        required: prompt.required !== false,
        'aria-label': 'Your answer',
      });
      // Enter sends, Shift+Enter starts a new line (as in the chat box).
      on(area, 'keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          area.form?.requestSubmit();
        }
      });
      body.append(area);
      actions.append(submitButton('Send'));
      return () =>
        area.value.trim() === '' && prompt.required !== false
          ? 'Please write an answer.'
          : { kind: 'text', text: area.value };
    }
    case 'binary_choice': {
      for (const option of options) {
        const button = h('button', { type: 'button', class: 'choice' }, option.label);
        on(button, 'click', () => send({ kind: 'option', option }));
        actions.append(button);
      }
      return () => 'Choose one of the buttons.';
    }
    case 'radio':
    case 'checkbox': {
      const multiple = prompt.input_type === 'checkbox';
      const group = h(
        'fieldset',
        { class: 'choices' },
        h('legend', { class: 'visually-hidden' }, prompt.text ?? 'Options'),
      );
      const name = uid('prompt-choice');
      const inputs = options.map((option) => {
        const id = uid('prompt-option');
        const input = h('input', { type: multiple ? 'checkbox' : 'radio', id, name, value: option.id });
        const descriptionId = option.description ? uid('prompt-option-description') : null;
        if (descriptionId) input.setAttribute('aria-describedby', descriptionId);
        group.append(
          h(
            'div',
            { class: 'choice-row' },
            input,
            h('label', { for: id }, option.label),
            descriptionId &&
              h('span', { id: descriptionId, class: 'choice-description' }, option.description ?? ''),
          ),
        );
        return { input, option };
      });
      let other: HTMLInputElement | null = null;
      if (prompt.allow_free_text && !multiple) {
        const id = uid('prompt-other');
        other = h('input', { type: 'text', id, class: 'other' });
        group.append(h('div', { class: 'choice-row' }, h('label', { for: id }, 'Other: '), other));
      }
      body.append(group);
      actions.append(submitButton(multiple ? 'Send selection' : 'Send'));
      return () => {
        const picked = inputs.filter((i) => i.input.checked).map((i) => i.option);
        if (multiple) {
          return picked.length === 0 && prompt.required !== false
            ? 'Select at least one option.'
            : { kind: 'options', options: picked };
        }
        if (picked[0]) return { kind: 'option', option: picked[0] };
        if (other && other.value.trim() !== '') return { kind: 'text', text: other.value };
        return 'Select an option.';
      };
    }
    case 'dropdown': {
      const id = uid('prompt-select');
      const select = h(
        'select',
        { id, 'aria-label': prompt.text ?? 'Choose' },
        h('option', { value: '' }, 'Choose…'),
        ...options.map((o) => h('option', { value: o.id, title: o.description ?? null }, o.label)),
      );
      body.append(select);
      actions.append(submitButton('Send'));
      return () => {
        const option = options.find((o) => o.id === select.value);
        return option ? { kind: 'option', option } : 'Choose an option.';
      };
    }
    case 'notification':
      actions.append(submitButton('OK'));
      return () => ({ kind: 'notification' });
    default:
      body.append(h('p', {}, `This page cannot show a "${prompt.input_type}" prompt.`));
      return () => `Unsupported prompt type ${prompt.input_type}`;
  }
}
