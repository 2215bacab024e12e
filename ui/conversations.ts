/** Conversations kept in this browser (localStorage): what was asked, answered and shown along the way. */

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
  reaction?: 'up' | 'down';
  commented?: boolean;
}

export interface Conversation {
  id: string;
  title: string;
  updatedAt: number;
  turns: Turn[];
}

const KEY = 'interlude.conversations';
/** Only so much is kept: the oldest conversations go first. */
const MAX_CONVERSATIONS = 50;

export class ConversationStore {
  private items: Conversation[];

  constructor(private readonly storage: Storage = localStorage) {
    this.items = this.read();
  }

  list(): Conversation[] {
    return [...this.items].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  get(id: string): Conversation | undefined {
    return this.items.find((c) => c.id === id);
  }

  /** The conversation with this id, created empty when it is new. */
  open(id: string): Conversation {
    const found = this.get(id);
    if (found) return found;
    const created: Conversation = { id, title: 'New conversation', updatedAt: Date.now(), turns: [] };
    this.items.push(created);
    return created;
  }

  rename(id: string, title: string): void {
    const conversation = this.get(id);
    if (!conversation || title.trim() === '') return;
    conversation.title = title.trim().slice(0, 120);
    this.save();
  }

  delete(id: string): void {
    this.items = this.items.filter((c) => c.id !== id);
    this.save();
  }

  /** Writes everything back (after any change to a conversation or its turns). */
  save(conversation?: Conversation): void {
    if (conversation) {
      conversation.updatedAt = Date.now();
      if (!this.get(conversation.id)) this.items.push(conversation);
    }
    const kept = this.list()
      .filter((c) => c.turns.length > 0 || c === conversation)
      .slice(0, MAX_CONVERSATIONS);
    try {
      this.storage.setItem(KEY, JSON.stringify(kept));
    } catch {
      // Storage full or refused: the page goes on without keeping history.
    }
  }

  private read(): Conversation[] {
    try {
      const parsed = JSON.parse(this.storage.getItem(KEY) ?? '[]') as unknown;
      return Array.isArray(parsed)
        ? (parsed.filter((c) => c && typeof c.id === 'string') as Conversation[])
        : [];
    } catch {
      return [];
    }
  }
}
