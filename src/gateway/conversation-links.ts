import type { SchemaType } from './ws-messages';

/**
 * Which execution a user's conversation is running, for a client that reconnects its socket with
 * `?conversation_id=` to another replica than the one running it: enough for that replica to render
 * the run (its reply ids, its schema) and to know what the last connection was shown.
 */
export interface ConversationLink {
  executionId: string;
  /** The `user_message` id every reply of the run names as its parent. */
  parentId: string;
  schema: SchemaType;
  /** The last event of the run a connection was shown (its prompts are sent again on a takeover). */
  delivered: number;
  /** When a connection last took the run over (epoch ms): a replica's abandon timer yields to it. */
  attachedAt: number;
}

/** The fields a holder of the run updates as it shows it. */
export type LinkProgress = Partial<Pick<ConversationLink, 'delivered' | 'attachedAt'>>;

/**
 * The port: a memory adapter for one process (where the live run is found in ConversationRuns first,
 * so this only answers for runs that ended) and a Redis one for replicas. Writes name the execution,
 * so a replica never overwrites the link of a newer run in the same conversation.
 */
export abstract class ConversationLinks {
  /** Whether other replicas read the links (then a linked run's events must outlive its end a while). */
  abstract readonly shared: boolean;
  abstract get(userId: string, conversationId: string): Promise<ConversationLink | undefined>;
  abstract set(userId: string, conversationId: string, link: ConversationLink): Promise<void>;
  abstract update(
    userId: string,
    conversationId: string,
    executionId: string,
    progress: LinkProgress,
  ): Promise<void>;
  abstract remove(userId: string, conversationId: string, executionId: string): Promise<void>;
  /**
   * Writes `link` again unless the conversation has one (which may be newer): for the replica holding
   * the run, after the store may have lost it. Whether it was written.
   */
  abstract restore(userId: string, conversationId: string, link: ConversationLink): Promise<boolean>;
  /** Calls `listener` each time the store is back after it was lost, and may have lost every link. */
  abstract onReset(listener: () => void): void;
}

/** How long a link outlives its last write: it is removed when its run ends, this bounds a lost one. */
export const LINK_TTL_MS = 24 * 3600 * 1000;

export class MemoryConversationLinks extends ConversationLinks {
  readonly shared = false;
  private readonly links = new Map<string, { link: ConversationLink; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async get(userId: string, conversationId: string): Promise<ConversationLink | undefined> {
    const k = key(userId, conversationId);
    const held = this.links.get(k);
    if (held && held.expiresAt <= this.now()) this.links.delete(k);
    return held && held.expiresAt > this.now() ? { ...held.link } : undefined;
  }

  async set(userId: string, conversationId: string, link: ConversationLink): Promise<void> {
    this.links.set(key(userId, conversationId), { link: { ...link }, expiresAt: this.now() + LINK_TTL_MS });
  }

  async update(userId: string, conversationId: string, executionId: string, progress: LinkProgress) {
    const held = this.links.get(key(userId, conversationId));
    if (!held || held.link.executionId !== executionId) return;
    Object.assign(held.link, progress);
    held.expiresAt = this.now() + LINK_TTL_MS;
  }

  async remove(userId: string, conversationId: string, executionId: string): Promise<void> {
    const k = key(userId, conversationId);
    if (this.links.get(k)?.link.executionId === executionId) this.links.delete(k);
  }

  async restore(userId: string, conversationId: string, link: ConversationLink): Promise<boolean> {
    if (await this.get(userId, conversationId)) return false;
    await this.set(userId, conversationId, link);
    return true;
  }

  /** The process's memory is never lost while it runs. */
  onReset(): void {}
}

function key(userId: string, conversationId: string): string {
  return `${userId}\u0000${conversationId}`;
}
