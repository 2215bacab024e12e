import type { Turn } from './conversations';
import { notifyWaiting } from './notify';
import { oauthView } from './oauth';
import { answerText, promptView, type PromptContent, type PromptView } from './prompts';
import type { ServerMessage } from './socket';
import type { TurnView } from './turn-view';
import { WaitingPrompts } from './waiting';

/** What the prompts need of the chat they are shown in. */
export interface PromptHost {
  /** The page's name, for the tab title and the desktop notification. */
  title: string;
  /** The composer: a prompt takes the focus only from it (or from nothing, or another prompt). */
  input: HTMLElement;
  announce(text: string): void;
  /** Sends the person's answer (a `user_interaction_message` content) for prompt `promptId`. */
  answer(promptId: string, content: Record<string, unknown>): void;
}

/**
 * The prompts of a conversation's turns, shown as forms under the turn that asked: which are still
 * open, which of them wait for the person (the tab title says so), and how each closes — answered,
 * passed (the run went on after a consent), or ended with its turn.
 */
export class TurnPrompts {
  private readonly open = new Map<string, { view: PromptView; turn: string }>();
  private readonly waiting: WaitingPrompts;

  constructor(private readonly host: PromptHost) {
    this.waiting = new WaitingPrompts(host.title === 'Interlude' ? host.title : `${host.title} · Interlude`);
  }

  /** Another conversation is shown: none of these prompts is open any more. */
  clear(): void {
    this.open.clear();
    this.waiting.clear();
  }

  show(turn: Turn, view: TurnView, message: ServerMessage): void {
    // Sent again after a reconnect (with the time it has left): the new form replaces the old one.
    this.open.get(message.id)?.view.element.remove();
    const content = message.content as unknown as PromptContent;
    const notification = content.input_type === 'notification';
    const prompt =
      content.input_type === 'oauth_consent'
        ? oauthView(String((message.content as { text?: unknown }).text ?? ''))
        : promptView(content, async (answer) => {
            // Notifications are shown, never waited on: nothing to send.
            if (notification) return null;
            this.waiting.remove(message.id);
            view.setWaiting(this.waiting.has(turn.id));
            this.host.answer(
              message.id,
              answer.kind === 'cancel'
                ? { cancel: true }
                : { messages: [{ role: 'user', content: [{ type: 'text', text: answerText(answer) }] }] },
            );
            return null;
          });
    this.open.set(message.id, { view: prompt, turn: turn.id });
    if (!notification) {
      turn.promptIds ??= [];
      if (!turn.promptIds.includes(message.id)) turn.promptIds.push(message.id);
      this.waiting.add(message.id, turn.id);
      view.setWaiting(true);
    }
    view.prompts.append(prompt.element);
    prompt.element.scrollIntoView({ block: 'nearest' });
    // A new question takes keyboard focus unless the person is busy elsewhere (a notification only informs).
    const active = document.activeElement;
    const focusIsFree =
      !active || active === document.body || active === this.host.input || Boolean(active.closest('.prompt'));
    if (focusIsFree && !notification) prompt.focus();
    if (!notification) notifyWaiting(this.host.title, String(content.text ?? ''), message.id);
    this.host.announce(`The workflow asks: ${String(content.text ?? '')}`);
  }

  /** Output after a consent means the run went on: the consent was given (maybe before its popup said so). */
  passed(turn: Turn, view: TurnView): void {
    for (const [id, prompt] of this.open) {
      if (prompt.turn === turn.id && prompt.view.passed) {
        prompt.view.passed();
        this.open.delete(id);
        this.waiting.remove(id);
        view.setWaiting(this.waiting.has(turn.id));
      }
    }
  }

  /** The turn stopped running: its prompts close and no longer wait. */
  ended(turn: Turn, view: TurnView): void {
    for (const [id, prompt] of this.open) {
      if (prompt.turn === turn.id) {
        prompt.view.close('No longer waiting for an answer.');
        this.open.delete(id);
      }
    }
    this.waiting.clear(turn.id);
    view.setWaiting(false);
  }
}
