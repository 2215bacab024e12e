import { api, problemOf, serverPath } from './api';
import type { Step, Turn } from './conversations';
import { h, iconButton, on, uid } from './dom';
import { renderMarkdown } from './markdown';

export interface TurnActions {
  retry(turn: Turn): void;
  changed(turn: Turn): void;
  announce(text: string): void;
}

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
  private readonly stepViews = new Map<string, { summary: HTMLElement; body: HTMLElement }>();
  private renderQueued = false;
  /** Whether a prompt of this turn waits for the person (then the run waits for them, not the reverse). */
  private waiting = false;

  constructor(
    readonly turn: Turn,
    private readonly on_: TurnActions,
  ) {
    const question = h(
      'div',
      { class: 'message user' },
      h('span', { class: 'visually-hidden' }, 'You said: '),
      turn.question,
    );
    this.stepsSummary = h('summary', {}, 'Steps');
    this.steps = h('ol', { class: 'steps' });
    this.stepsBox = h('details', { class: 'timeline', hidden: true }, this.stepsSummary, this.steps);
    this.prompts = h('div', { class: 'prompts' });
    this.answer = h('div', { class: 'answer markdown' });
    this.error = h('div', { class: 'turn-error', role: 'alert', hidden: true });
    this.state = h('p', { class: 'turn-state' });
    this.actions = h('div', { class: 'turn-actions' });
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
    if (turn.traceId) this.actions.append(...this.feedback(turn.traceId));
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

  private feedback(traceId: string): HTMLElement[] {
    const { turn } = this;
    const note = h('span', { class: 'feedback-note', role: 'status' });
    const send = async (body: Record<string, unknown>, done: () => void) => {
      const res = await api(serverPath('/feedback'), {
        method: 'POST',
        body: { observability_trace_id: traceId, ...body },
      });
      if (!res.ok) {
        note.textContent = `Feedback not saved: ${await problemOf(res)}`;
        return;
      }
      done();
      this.on_.changed(turn);
      note.textContent = 'Thanks for the feedback';
    };
    const thumb = (reaction: 'up' | 'down') => {
      const button = iconButton(
        reaction,
        reaction === 'up' ? 'Good answer' : 'Bad answer',
        () =>
          void send({ reaction_type: reaction === 'up' ? '👍' : '👎' }, () => {
            turn.reaction = reaction;
            up.setAttribute('aria-pressed', String(turn.reaction === 'up'));
            down.setAttribute('aria-pressed', String(turn.reaction === 'down'));
          }),
      );
      button.setAttribute('aria-pressed', String(turn.reaction === reaction));
      return button;
    };
    const up = thumb('up');
    const down = thumb('down');
    const id = uid('comment');
    const comment = h('input', { type: 'text', id, maxlength: 2000, placeholder: 'Add a comment' });
    const form = h(
      'form',
      { class: 'comment-form', 'aria-label': 'Comment on this answer' },
      h('label', { for: id, class: 'visually-hidden' }, 'Comment on this answer'),
      comment,
      h('button', { type: 'submit', class: 'secondary' }, 'Send comment'),
    );
    on(form, 'submit', (event) => {
      event.preventDefault();
      if (comment.value.trim() === '') return;
      void send({ comment: comment.value }, () => {
        turn.commented = true;
        comment.value = '';
        form.hidden = true;
        open.setAttribute('aria-expanded', 'false');
      });
    });
    // The comment box stays out of the way until asked for: one small button beside the thumbs.
    form.hidden = true;
    const open = h(
      'button',
      { type: 'button', class: 'link-button', 'aria-expanded': 'false' },
      'Add a comment',
    );
    on(open, 'click', () => {
      form.hidden = !form.hidden;
      open.setAttribute('aria-expanded', String(!form.hidden));
      if (!form.hidden) comment.focus();
    });
    return [up, down, open, form, note];
  }
}
