import { ExecutionStore } from './execution.store';
import type { ExecutionRecord } from './execution-record';

/** The embedded default: one process, nothing to install. */
export class MemoryExecutionStore extends ExecutionStore {
  private readonly records = new Map<string, ExecutionRecord>();

  async create(record: ExecutionRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`Execution ${record.id} already exists`);
    this.records.set(record.id, { ...record });
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    return record && { ...record };
  }

  async update(
    id: string,
    patch: Partial<Omit<ExecutionRecord, 'id'>>,
  ): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    if (!record) return undefined;
    Object.assign(record, patch);
    return { ...record };
  }

  async delete(id: string): Promise<void> {
    this.records.delete(id);
  }

  async evictExpired(now: number): Promise<number> {
    let evicted = 0;
    for (const [id, record] of this.records) {
      if (record.expiresAt !== undefined && record.expiresAt <= now) {
        this.records.delete(id);
        evicted++;
      }
    }
    return evicted;
  }

  get size(): number {
    return this.records.size;
  }
}
