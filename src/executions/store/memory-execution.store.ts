import { ExecutionStore, type OwnerExecutionsQuery } from './execution.store';
import type { ExecutionRecord } from '../model/execution-record';
import type { FaceRef } from '../model/execution-record';
import {
  applyTransition,
  WAITING_STATUSES,
  type ExecutionTransition,
  type TransitionOutcome,
} from '../model/execution-state';

const ANON = '\u0000anonymous';
/** Distinct faces kept once (a route's requests name equal faces); past this, records keep their own. */
const FACES_SHARED = 256;

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
  private readonly faces = new Map<string, FaceRef>();

  async create(record: ExecutionRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`Execution ${record.id} already exists`);
    this.records.set(record.id, { ...record, interactions: { ...record.interactions } });
    this.track(undefined, record);
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    return record && { ...record, interactions: { ...record.interactions } };
  }

  /** The kept record itself: a transition replaces a record (and its interactions), never changes it. */
  override async peek(id: string): Promise<Readonly<ExecutionRecord> | undefined> {
    return this.records.get(id);
  }

  async apply(id: string, transition: ExecutionTransition): Promise<TransitionOutcome> {
    const record = this.records.get(id);
    if (!record) return 'not_found';
    const { outcome, record: next } = applyTransition(record, transition, Date.now());
    if (outcome !== 'applied') return outcome;
    // A waiting record is kept for as long as the person takes: it names the face every other
    // record of its route names, not a copy of it.
    if (next.face && transition.kind === 'interaction_opened') next.face = this.sharedFace(next.face);
    this.records.set(id, next);
    this.track(record, next);
    return outcome;
  }

  async delete(id: string): Promise<void> {
    const record = this.records.get(id);
    if (!record) return;
    this.records.delete(id);
    this.track(record, { ...record, status: 'failed' });
  }

  async countWaiting(ownerId?: string | null): Promise<number> {
    if (ownerId === undefined) return this.waitingTotal;
    return this.waiting.get(ownerId ?? ANON) ?? 0;
  }

  async countWaitingFrom(clientAddress: string): Promise<number> {
    return this.waitingByAddress.get(clientAddress) ?? 0;
  }

  async listOwned(ownerId: string, query: OwnerExecutionsQuery): Promise<ExecutionRecord[]> {
    const { after } = query;
    const newerFirst = (a: ExecutionRecord, b: ExecutionRecord) =>
      b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    return [...this.records.values()]
      .filter((r) => r.ownerId === ownerId && query.statuses.includes(r.status))
      .filter(
        (r) =>
          !after || r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.id < after.id),
      )
      .sort(newerFirst)
      .slice(0, query.limit)
      .map((r) => ({ ...r, interactions: { ...r.interactions } }));
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

  private sharedFace(face: FaceRef): FaceRef {
    const key = JSON.stringify(face);
    const shared = this.faces.get(key);
    if (shared) return shared;
    if (this.faces.size < FACES_SHARED) this.faces.set(key, face);
    return face;
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
