import { Injectable } from '@nestjs/common';
import type { Entry } from './execution-entry';

/**
 * The executions this process runs, and finished ones whose id a client holds until their record
 * expires: the only holder of that map, so every add and removal is one of the methods here.
 */
@Injectable()
export class RunningExecutions {
  private readonly entries = new Map<string, Entry>();

  get(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Registers an execution that starts (or is taken over) here. */
  add(entry: Entry): void {
    this.entries.set(entry.execution.id, entry);
  }

  /** Forgets an execution: it ended unseen, or another replica goes on with it. */
  remove(id: string): void {
    this.entries.delete(id);
  }

  /** A copy, so the caller may remove entries while it goes through them. */
  all(): Entry[] {
    return [...this.entries.values()];
  }

  /** Forgets the finished executions whose record expired by `now`, and frees their event logs. */
  evictExpired(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        this.entries.delete(id);
        entry.execution.events.dispose();
      }
    }
  }
}
