/**
 * Conversations kept by the server for the page's identity (`/conversations`), so they follow a person
 * to another browser or device. Without an identity (the server answers 401) they live in this tab only.
 */
import { api, serverPath } from './api';

export interface Step {
  id: string;
  name: string;
  payload: string;
  /** Epoch ms of the step's first and latest message. */
  start: number;
  end: number;
}

export interface Turn {
  /** The user message's id: every server message of this turn carries it as `parent_id`. */
  id: string;
  question: string;
  answer: string;
  steps: Step[];
  status: 'running' | 'done' | 'failed' | 'stopped';
  error?: { message: string; details: string };
  traceId?: string;
  /** The tokens the answer's model calls reported (the server's token_usage), when any did. */
  tokens?: TokenUsage;
  reaction?: 'up' | 'down';
  commented?: boolean;
  /** Epoch ms the question was sent and the answer ended: the latency shown under the answer. */
  sentAt?: number;
  endedAt?: number;
  /** The prompts asked in this turn (interaction ids): the inbox finds the conversation by them. */
  promptIds?: string[];
  /** The images sent with the question, by name and type (their bytes are not kept). */
  attachments?: { name: string; type: string }[];
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Token counts as the server sent them, or as a stored turn holds them (both could be anything): three
 * whole numbers from 0 up, else undefined.
 */
export function tokenUsageOf(value: unknown): TokenUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { prompt_tokens, completion_tokens, total_tokens } = value as Record<string, unknown>;
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!whole(prompt_tokens) || !whole(completion_tokens) || !whole(total_tokens)) return undefined;
  return { prompt_tokens, completion_tokens, total_tokens };
}

export interface Conversation {
  id: string;
  title: string;
  updatedAt: number;
  turns: Turn[];
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
}

/** How long the page gathers changes (a streamed answer is many) before it writes them. */
const SAVE_DELAY_MS = 400;
/** The server keeps at most this many per person, so one listing is all of them. */
const MAX_LISTED = 200;

const path = (id?: string) =>
  serverPath(id === undefined ? '/conversations' : `/conversations/${encodeURIComponent(id)}`);

export class ConversationStore {
  private summaries: ConversationSummary[] = [];
  /** Conversations with changes not yet written, and those of a tab without identity. */
  private readonly held = new Map<string, Conversation>();
  private readonly timers = new Map<string, number>();
  private writes: Promise<unknown> = Promise.resolve();
  /** Every conversation the server keeps for this identity (the unfiltered list: all of them, at most 200). */
  private ids = new Set<string>();
  private listed: Promise<void> = Promise.resolve();
  /** False when the server keeps nothing for this page (no identity): conversations last as long as the tab. */
  kept = true;
  /** Why the last write failed, for the sidebar ('' when it did not). */
  problem = '';

  constructor(private readonly changed: () => void) {
    addEventListener('pagehide', () => this.flush());
  }

  /** The list, most recent first: `query` searches titles, questions and answers on the server. */
  refresh(query = ''): Promise<void> {
    const loading = this.load(query.trim());
    if (!query.trim()) this.listed = loading;
    return loading;
  }

  list(): ConversationSummary[] {
    return this.summaries;
  }

  /** The conversation as the server has it (newest from any browser), or a new empty one. */
  async open(id: string): Promise<Conversation> {
    const held = this.held.get(id);
    if (held) return held;
    // Only what the server listed is asked for: a new conversation is no request (and no 404).
    await this.listed;
    if (this.ids.has(id)) {
      const res = await api(path(id)).catch(() => null);
      if (res?.ok) {
        const body = (await res.json()) as { title: string; updated_at: string; turns: Turn[] };
        return { id, title: body.title, updatedAt: Date.parse(body.updated_at), turns: body.turns };
      }
    }
    return { id, title: 'New conversation', updatedAt: Date.now(), turns: [] };
  }

  private async load(query: string): Promise<void> {
    const params = new URLSearchParams({ limit: String(MAX_LISTED) });
    if (query) params.set('q', query);
    const res = await api(`${path()}?${params}`).catch(() => null);
    if (res?.status === 401) this.kept = false;
    if (!res?.ok) {
      if (!this.kept) this.summaries = this.localList(query);
      return;
    }
    this.kept = true;
    const body = (await res.json()) as { items: { id: string; title: string; updated_at: string }[] };
    this.summaries = body.items.map((c) => ({
      id: c.id,
      title: c.title,
      updatedAt: Date.parse(c.updated_at),
    }));
    if (!query) this.ids = new Set(body.items.map((c) => c.id));
  }

  async rename(id: string, title: string): Promise<void> {
    const trimmed = title.trim().slice(0, 120);
    if (trimmed === '') return;
    const held = this.held.get(id);
    if (held) held.title = trimmed;
    const summary = this.summaries.find((c) => c.id === id);
    if (summary) summary.title = trimmed;
    if (!this.kept) return;
    await this.flushOne(id);
    await this.queue(() => api(path(id), { method: 'PATCH', body: { title: trimmed } }));
  }

  async delete(id: string): Promise<void> {
    window.clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.held.delete(id);
    this.ids.delete(id);
    this.summaries = this.summaries.filter((c) => c.id !== id);
    if (this.kept) await this.queue(() => api(path(id), { method: 'DELETE' }));
  }

  /** Notes a change; the server gets it shortly (one write for a burst of changes). */
  save(conversation: Conversation): void {
    if (conversation.turns.length === 0) return;
    conversation.updatedAt = Date.now();
    this.held.set(conversation.id, conversation);
    this.ids.add(conversation.id);
    this.summaries = [
      { id: conversation.id, title: conversation.title, updatedAt: conversation.updatedAt },
      ...this.summaries.filter((c) => c.id !== conversation.id),
    ];
    if (!this.kept || this.timers.has(conversation.id)) return;
    this.timers.set(
      conversation.id,
      window.setTimeout(() => void this.flushOne(conversation.id), SAVE_DELAY_MS),
    );
  }

  /** Writes every held change now (the page is going away: the writes outlive it). */
  flush(): void {
    for (const id of [...this.timers.keys()]) void this.flushOne(id, true);
  }

  private flushOne(id: string, keepalive = false): Promise<unknown> {
    if (!this.timers.has(id)) return this.writes;
    window.clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    const conversation = this.held.get(id);
    if (!conversation) return this.writes;
    const body = { title: conversation.title, turns: conversation.turns };
    // A keepalive request may carry 64 KiB at most; a larger one is sent as an ordinary request.
    if (keepalive && JSON.stringify(body).length < 60_000) {
      // The page is going away: queued writes would never start, this one outlives it.
      return api(path(id), { method: 'PUT', body, keepalive: true }).catch(() => undefined);
    }
    return this.queue(async () => {
      const res = await api(path(id), { method: 'PUT', body });
      // Written and not changed since: the server's copy is the one to read from now on.
      if (res.ok && !this.timers.has(id)) this.held.delete(id);
      return res;
    });
  }

  /** Writes one after another, so an older version never lands after a newer one. */
  private queue(write: () => Promise<Response>): Promise<unknown> {
    this.writes = this.writes.then(write).then(
      (res) => this.report(res.ok ? '' : `Not saved (${res.status})`),
      () => this.report('Not saved: the server cannot be reached'),
    );
    return this.writes;
  }

  private report(problem: string): void {
    if (problem === this.problem) return;
    this.problem = problem;
    this.changed();
  }

  private localList(query: string): ConversationSummary[] {
    const q = query.trim().toLowerCase();
    return [...this.held.values()]
      .filter(
        (c) =>
          !q ||
          [c.title, ...c.turns.flatMap((t) => [t.question, t.answer])].join('\n').toLowerCase().includes(q),
      )
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt }));
  }
}
