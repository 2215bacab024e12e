import { Injectable } from '@nestjs/common';
import type { WsRun } from './ws-run';

/**
 * The run still going in each user's conversation, for the connection that takes it over; and every
 * identified user's live runs, so a reply naming an interaction id finds its prompt on any connection.
 */
@Injectable()
export class ConversationRuns {
  private readonly runs = new Map<string, WsRun>();
  private readonly byOwner = new Map<string, Set<WsRun>>();

  /** Makes an identified user's run answerable by interaction id until it is removed. */
  track(run: WsRun): void {
    if (run.ownerId === null) return;
    const owned = this.byOwner.get(run.ownerId) ?? new Set<WsRun>();
    owned.add(run);
    this.byOwner.set(run.ownerId, owned);
  }

  /** The user's run whose prompt `interactionId` is waiting, whatever its conversation. */
  waitingOn(userId: string, interactionId: string): WsRun | undefined {
    for (const run of this.byOwner.get(userId) ?? []) {
      if (!run.isEnded && run.waitingPrompts().includes(interactionId)) return run;
    }
    return undefined;
  }

  get(userId: string, conversationId: string): WsRun | undefined {
    return this.runs.get(key(userId, conversationId));
  }

  set(userId: string, conversationId: string, run: WsRun): void {
    this.runs.set(key(userId, conversationId), run);
  }

  /** The runs a reconnecting client could find (each conversation's latest). */
  linked(): WsRun[] {
    return [...this.runs.values()];
  }

  /** Whether a reconnecting client could find `run` (only identified users' runs in a conversation). */
  holds(run: WsRun): boolean {
    return this.keyOf(run) !== undefined;
  }

  remove(run: WsRun): void {
    const k = this.keyOf(run);
    if (k !== undefined) this.runs.delete(k);
    const owned = run.ownerId === null ? undefined : this.byOwner.get(run.ownerId);
    owned?.delete(run);
    if (owned?.size === 0) this.byOwner.delete(run.ownerId!);
  }

  private keyOf(run: WsRun): string | undefined {
    if (run.ownerId === null || run.conversationId === null) return undefined;
    const k = key(run.ownerId, run.conversationId);
    return this.runs.get(k) === run ? k : undefined;
  }
}

function key(userId: string, conversationId: string): string {
  return `${userId}\u0000${conversationId}`;
}
