import { Injectable } from '@nestjs/common';
import type { WsRun } from './ws-run';

/** The run still going in each user's conversation, for the connection that takes it over. */
@Injectable()
export class ConversationRuns {
  private readonly runs = new Map<string, WsRun>();

  get(userId: string, conversationId: string): WsRun | undefined {
    return this.runs.get(key(userId, conversationId));
  }

  set(userId: string, conversationId: string, run: WsRun): void {
    this.runs.set(key(userId, conversationId), run);
  }

  /** Whether a reconnecting client could find `run` (only identified users' runs in a conversation). */
  holds(run: WsRun): boolean {
    return this.keyOf(run) !== undefined;
  }

  remove(run: WsRun): void {
    const k = this.keyOf(run);
    if (k !== undefined) this.runs.delete(k);
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
