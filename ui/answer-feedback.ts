import { api, problemOf, serverPath } from './api';
import type { Turn } from './conversations';
import { h, iconButton, on, uid } from './dom';

/**
 * Thumbs on an answer and a comment behind its "Add a comment" button, sent to `POST /feedback` with
 * the answer's trace id; `changed` is told when the turn records what was sent.
 */
export function feedbackControls(turn: Turn, traceId: string, changed: () => void): HTMLElement[] {
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
    changed();
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
