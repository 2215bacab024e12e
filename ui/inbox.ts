import { api, problemOf, serverPath } from './api';
import { h, on } from './dom';
import { oauthView } from './oauth';
import { answerBody, promptView, type PromptContent } from './prompts';

/** One entry of `GET /executions`. */
interface Waiting {
  execution_id: string;
  status: 'interaction_required' | 'oauth_required';
  interaction_id?: string;
  prompt?: PromptContent;
  response_url?: string;
  auth_url?: string;
  created_at: string;
  /** When the prompt stops taking an answer (ISO 8601), when it has a timeout. */
  expires_at?: string;
}

/**
 * The approvals inbox: the caller's executions waiting for a person, whatever face started them,
 * each answerable in place over the HTTP face.
 */
export class Inbox {
  private cursor: string | null = null;

  constructor(
    private readonly list: HTMLElement,
    private readonly status: HTMLElement,
    private readonly more: HTMLButtonElement,
    refresh: HTMLButtonElement,
    /** Shows a conversation in the chat (where the page asked this prompt). */
    private readonly openConversation: (id: string) => void,
  ) {
    on(refresh, 'click', () => void this.load());
    on(more, 'click', () => void this.load(this.cursor));
  }

  async load(cursor: string | null = null): Promise<void> {
    const query = new URLSearchParams({ status: 'interaction_required|oauth_required', limit: '20' });
    if (cursor) query.set('cursor', cursor);
    this.status.textContent = 'Loading…';
    let res: Response;
    try {
      res = await api(serverPath(`/executions?${query}`));
    } catch {
      this.status.textContent = 'The server cannot be reached.';
      return;
    }
    if (!res.ok) {
      this.status.textContent = `The inbox could not be loaded: ${await problemOf(res)}`;
      return;
    }
    const page = (await res.json()) as { data: Waiting[]; next_cursor: string | null };
    if (!cursor) this.list.replaceChildren();
    for (const item of page.data) this.list.append(this.entry(item));
    this.cursor = page.next_cursor;
    this.more.hidden = page.next_cursor === null;
    const count = this.list.children.length;
    this.status.textContent = count === 0 ? 'Nothing is waiting for you.' : `${count} waiting for you`;
  }

  private entry(item: Waiting): HTMLElement {
    const started = new Date(item.created_at);
    const meta = h(
      'p',
      { class: 'inbox-meta' },
      `Execution ${item.execution_id.slice(0, 8)} · started `,
      h('time', { datetime: item.created_at }, started.toLocaleString()),
    );
    const expiresAt = item.expires_at ? Date.parse(item.expires_at) : NaN;
    if (!Number.isNaN(expiresAt)) {
      meta.append(
        ' · answer by ',
        h(
          'time',
          { class: 'inbox-expiry', datetime: item.expires_at ?? '' },
          new Date(expiresAt).toLocaleTimeString(),
        ),
      );
    }
    const li = h('li', { class: 'inbox-item', 'data-execution-id': item.execution_id }, meta);
    if (item.interaction_id) void this.linkConversation(meta, item.interaction_id);
    if (item.status === 'oauth_required') {
      li.append(oauthView(item.auth_url ?? '').element);
      return li;
    }
    const prompt = item.prompt;
    if (!prompt || !item.response_url) return li;
    const url = item.response_url;
    li.append(
      promptView(
        prompt,
        async (answer) => {
          const res = await api(url, { method: 'POST', body: { response: answerBody(prompt, answer) } });
          return res.ok ? null : problemOf(res);
        },
        Number.isNaN(expiresAt) ? null : expiresAt,
      ).element,
    );
    return li;
  }

  /** Asked in one of this person's chats: the inbox names the conversation and opens the chat at it. */
  private async linkConversation(meta: HTMLElement, interactionId: string): Promise<void> {
    const query = new URLSearchParams({ interaction_id: interactionId, limit: '1' });
    const res = await api(serverPath(`/conversations?${query}`)).catch(() => null);
    if (!res?.ok) return;
    const { items } = (await res.json()) as { items: { id: string; title: string }[] };
    const conversation = items[0];
    if (!conversation) return;
    const open = h('button', { type: 'button', class: 'link-button' }, 'Open in chat');
    on(open, 'click', () => this.openConversation(conversation.id));
    meta.replaceChildren(
      'In ',
      h('span', { class: 'inbox-conversation' }, conversation.title),
      ' · ',
      ...[...meta.childNodes].slice(1),
      ' ',
      open,
    );
  }
}
