import { feedbackControls } from './answer-feedback';
import { attachmentList, thumbnails } from './attachments';
import { tokenUsageOf, type Step, type Turn } from './conversations';
import { h, iconButton, on, uid } from './dom';
import { renderMarkdown } from './markdown';

export interface TurnActions {
  retry(turn: Turn): void;
  /** Sends `text` in place of this turn's question (the last turn only). */
  edit(turn: Turn, text: string): void;
  changed(turn: Turn): void;
  announce(text: string): void;
}

const count = (n: number) => n.toLocaleString('en-US');
const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** One question and what came back: steps, prompts, the streamed answer, errors, and its actions. */
export class TurnView {
  readonly element: HTMLElement;
  /** Where prompt forms of this turn go, in the order they were asked. */
  readonly prompts: HTMLElement;
  private readonly answer: HTMLElement;
  private readonly steps: HTMLElement;
  private readonly stepsSummary: HTMLElement;
  private readonly stepsBox: HTMLDetailsElement;
  private readonly error: HTMLElement;
  private readonly state: HTMLElement;
  private readonly actions: HTMLElement;
  private readonly meta: HTMLElement;
  private readonly question: HTMLElement;
  private editable = false;
  private readonly stepViews = new Map<string, { summary: HTMLElement; body: HTMLElement }>();
  private renderQueued = false;
  /** Whether a prompt of this turn waits for the person (then the run waits for them, not the reverse). */
  private waiting = false;

  constructor(
    readonly turn: Turn,
    private readonly on_: TurnActions,
  ) {
    const question = h('div', { class: 'message user' });
    this.question = question;
    this.renderQuestion();
    this.stepsSummary = h('summary', {}, 'Steps');
    this.steps = h('ol', { class: 'steps' });
    this.stepsBox = h('details', { class: 'timeline', hidden: true }, this.stepsSummary, this.steps);
    this.prompts = h('div', { class: 'prompts' });
    this.answer = h('div', { class: 'answer markdown' });
    this.error = h('div', { class: 'turn-error', role: 'alert', hidden: true });
    this.state = h('p', { class: 'turn-state' });
    this.actions = h('div', { class: 'turn-actions' });
    this.meta = h('p', { class: 'turn-meta' });
    const reply = h(
      'div',
      { class: 'message assistant' },
      h('span', { class: 'visually-hidden' }, 'Assistant: '),
      this.stepsBox,
      this.prompts,
      this.answer,
      this.error,
      this.state,
      this.actions,
      this.meta,
    );
    this.element = h(
      'article',
      { class: 'turn', 'data-turn-id': turn.id, 'aria-label': `Question: ${turn.question.slice(0, 80)}` },
      question,
      reply,
    );
    for (const step of turn.steps) this.renderStep(step);
    this.refresh();
  }

  appendText(text: string): void {
    this.turn.answer += text;
    this.scheduleAnswer();
  }

  upsertStep(id: string, name: string, payload: string, at: number): void {
    let step = this.turn.steps.find((s) => s.id === id);
    if (!step) {
      step = { id, name, payload, start: at, end: at };
      this.turn.steps.push(step);
    } else {
      step.name = name;
      step.payload = payload;
      step.end = Math.max(step.end, at);
    }
    this.renderStep(step);
  }

  /** Whether the question can be edited and sent again (the conversation's last turn, once it ended). */
  setEditable(editable: boolean): void {
    if (editable === this.editable) return;
    this.editable = editable;
    this.renderQuestion();
  }

  private renderQuestion(): void {
    const { turn } = this;
    const text = h('span', { class: 'question-text' }, turn.question);
    const parts: (Node | string)[] = [h('span', { class: 'visually-hidden' }, 'You said: '), text];
    if (turn.attachments?.length) {
      const urls = thumbnails.get(turn) ?? [];
      parts.push(attachmentList(turn.attachments.map((a, i) => ({ name: a.name, url: urls[i] }))));
    }
    if (this.editable && turn.status !== 'running') {
      parts.push(iconButton('edit', 'Edit your message', () => this.startEditing()));
    }
    this.question.replaceChildren(...parts);
  }

  /** The question becomes a box: Send puts the edited question in this turn's place. */
  private startEditing(): void {
    const id = uid('edit');
    const box = h('textarea', { id, rows: 2, maxlength: 100_000 });
    box.value = this.turn.question;
    const form = h(
      'form',
      { class: 'edit-form', 'aria-label': 'Edit your message' },
      h('label', { for: id, class: 'visually-hidden' }, 'Your message'),
      box,
      h('button', { type: 'submit', class: 'primary' }, 'Send edited message'),
      h('button', { type: 'button', class: 'secondary', 'data-cancel': '' }, 'Cancel'),
    );
    on(form, 'submit', (event) => {
      event.preventDefault();
      if (box.value.trim() !== '') this.on_.edit(this.turn, box.value);
    });
    on(form.querySelector('[data-cancel]')!, 'click', () => this.renderQuestion());
    on(box, 'keydown', (event) => {
      if (event.key === 'Escape') this.renderQuestion();
      else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    this.question.replaceChildren(form);
    box.focus();
  }

  setWaiting(waiting: boolean): void {
    if (waiting === this.waiting) return;
    this.waiting = waiting;
    this.refresh();
  }

  /** Redraws what depends on the turn's status (error, state line, actions). */
  refresh(): void {
    const { turn } = this;
    this.renderAnswer();
    // A stop is the person's own act, not a failure: it is said in the state line, not as an error.
    const error = turn.status === 'stopped' ? undefined : turn.error;
    this.error.hidden = !error;
    if (error) {
      this.error.replaceChildren(
        h('strong', {}, 'Error'),
        h('span', {}, `: ${error.details || error.message}`),
      );
      if (error.message && error.details) {
        this.error.append(h('span', { class: 'error-type' }, ` (${error.message})`));
      }
    }
    const waiting = turn.status === 'running' && this.waiting;
    this.state.textContent = waiting
      ? 'Waiting for you'
      : turn.status === 'running'
        ? 'Working…'
        : turn.status === 'stopped'
          ? 'Stopped'
          : '';
    this.state.classList.toggle('waiting', waiting);
    this.element.setAttribute('aria-busy', String(turn.status === 'running'));
    this.renderActions();
    this.renderMeta();
  }

  /** How long the answer took and the trace it was recorded under (feedback goes to that trace). */
  private renderMeta(): void {
    const { turn } = this;
    const parts: (Node | string)[] = [];
    if (turn.status !== 'running' && turn.sentAt && turn.endedAt) {
      parts.push(
        h(
          'span',
          { class: 'latency' },
          `${turn.status === 'done' ? 'Answered' : 'Ended'} in ${seconds(turn.endedAt - turn.sentAt)}`,
        ),
      );
    }
    const tokens = tokenUsageOf(turn.tokens);
    if (tokens) {
      if (parts.length) parts.push(' · ');
      parts.push(
        h(
          'span',
          { class: 'tokens' },
          `${count(tokens.total_tokens)} tokens (${count(tokens.prompt_tokens)} in, ${count(tokens.completion_tokens)} out)`,
        ),
      );
    }
    if (turn.traceId) {
      if (parts.length) parts.push(' · ');
      parts.push('Trace ', h('code', { class: 'trace-id' }, turn.traceId));
    }
    this.meta.replaceChildren(...parts);
    this.meta.hidden = parts.length === 0;
  }

  private scheduleAnswer(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.renderAnswer();
    });
  }

  private renderAnswer(): void {
    renderMarkdown(this.answer, this.turn.answer);
  }

  private renderStep(step: Step): void {
    this.stepsBox.hidden = false;
    let view = this.stepViews.get(step.id);
    if (!view) {
      const summary = h('summary', {});
      const body = h('div', { class: 'markdown step-payload' });
      this.steps.append(h('li', { class: 'step' }, h('details', {}, summary, body)));
      view = { summary, body };
      this.stepViews.set(step.id, view);
    }
    view.summary.replaceChildren(
      h('span', { class: 'step-name' }, step.name),
      h('span', { class: 'step-duration' }, seconds(step.end - step.start)),
    );
    renderMarkdown(view.body, step.payload);
    const steps = this.turn.steps;
    const total = steps.length
      ? Math.max(...steps.map((s) => s.end)) - Math.min(...steps.map((s) => s.start))
      : 0;
    this.stepsSummary.textContent = `${steps.length} intermediate step${steps.length === 1 ? '' : 's'} · ${seconds(total)}`;
  }

  private renderActions(): void {
    const { turn } = this;
    const done = turn.status !== 'running';
    this.actions.replaceChildren();
    if (!done) return;
    if (turn.answer) {
      this.actions.append(iconButton('copy', 'Copy answer', () => void this.copy()));
    }
    this.actions.append(iconButton('retry', 'Retry this question', () => this.on_.retry(turn)));
    if (turn.traceId) {
      this.actions.append(...feedbackControls(turn, turn.traceId, () => this.on_.changed(turn)));
    }
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.turn.answer);
      this.on_.announce('Answer copied');
    } catch {
      // Without clipboard permission: select the answer so the person can copy it themselves.
      const range = document.createRange();
      range.selectNodeContents(this.answer);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      this.on_.announce('Answer selected: press Ctrl+C to copy');
    }
  }
}
