import { ExecutionStore } from './execution.store';
import {
  WAITING_STATUSES,
  type CloseOutcome,
  type ExecutionRecord,
  type InteractionRecord,
} from './execution-record';

const ANON = '\u0000anonymous';

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}

/** The embedded default: one process, nothing to install. Every operation is atomic by construction. */
export class MemoryExecutionStore extends ExecutionStore {
  private readonly records = new Map<string, ExecutionRecord>();
  private readonly waiting = new Map<string, number>();
  private readonly waitingByAddress = new Map<string, number>();
  private waitingTotal = 0;

  async create(record: ExecutionRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`Execution ${record.id} already exists`);
    this.records.set(record.id, { ...record, interactions: { ...record.interactions } });
    this.track(undefined, record);
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    return record && { ...record, interactions: { ...record.interactions } };
  }

  async update(
    id: string,
    patch: Partial<Omit<ExecutionRecord, 'id'>>,
  ): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    if (!record) return undefined;
    this.apply(record, patch);
    return { ...record, interactions: { ...record.interactions } };
  }

  async delete(id: string): Promise<void> {
    const record = this.records.get(id);
    if (!record) return;
    this.apply(record, { status: 'failed' });
    this.records.delete(id);
  }

  async openInteraction(id: string, interactionId: string, interaction: InteractionRecord): Promise<void> {
    const record = this.records.get(id);
    if (!record) throw new Error(`Execution ${id} not found`);
    this.apply(record, {
      status: 'interaction_required',
      openInteractionId: interactionId,
      interactions: { ...record.interactions, [interactionId]: interaction },
      updatedAt: Date.now(),
    });
  }

  async closeInteraction(
    id: string,
    interactionId: string,
    status: Exclude<InteractionRecord['status'], 'open'>,
  ): Promise<CloseOutcome> {
    const record = this.records.get(id);
    const interaction = record?.interactions[interactionId];
    if (!record || !interaction) return 'not_found';
    if (interaction.status !== 'open') return 'already_closed';
    const reopened = record.openInteractionId === interactionId;
    this.apply(record, {
      interactions: { ...record.interactions, [interactionId]: { ...interaction, status } },
      ...(reopened ? { status: 'running' as const, openInteractionId: undefined } : {}),
      updatedAt: Date.now(),
    });
    return 'closed';
  }

  async countWaiting(ownerId?: string | null): Promise<number> {
    if (ownerId === undefined) return this.waitingTotal;
    return this.waiting.get(ownerId ?? ANON) ?? 0;
  }

  async countWaitingFrom(clientAddress: string): Promise<number> {
    return this.waitingByAddress.get(clientAddress) ?? 0;
  }

  async evictExpired(now: number): Promise<string[]> {
    const evicted: string[] = [];
    for (const [id, record] of this.records) {
      if (record.expiresAt !== undefined && record.expiresAt <= now) {
        this.records.delete(id);
        evicted.push(id);
      }
    }
    return evicted;
  }

  get size(): number {
    return this.records.size;
  }

  private apply(record: ExecutionRecord, patch: Partial<ExecutionRecord>): void {
    const before = { ...record };
    Object.assign(record, patch);
    this.track(before, record);
  }

  /** Keeps the waiting counters in step with status changes. */
  private track(before: ExecutionRecord | undefined, after: ExecutionRecord): void {
    const was = before !== undefined && WAITING_STATUSES.includes(before.status);
    const is = WAITING_STATUSES.includes(after.status);
    if (was === is) return;
    const delta = is ? 1 : -1;
    this.waitingTotal += delta;
    bump(this.waiting, after.ownerId ?? ANON, delta);
    if (after.clientAddress !== undefined) bump(this.waitingByAddress, after.clientAddress, delta);
  }
}
