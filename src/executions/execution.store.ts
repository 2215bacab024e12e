import type { ExecutionRecord } from './execution-record';

/**
 * Where executions live between a workflow and the faces that poll it. Abstract class so it is also
 * the DI token; memory now, Redis for scale-out. One contract suite runs against every adapter.
 */
export abstract class ExecutionStore {
  abstract create(record: ExecutionRecord): Promise<void>;
  abstract get(id: string): Promise<ExecutionRecord | undefined>;
  /** Applies `patch` and returns the new record, or undefined when the id is unknown. */
  abstract update(
    id: string,
    patch: Partial<Omit<ExecutionRecord, 'id'>>,
  ): Promise<ExecutionRecord | undefined>;
  abstract delete(id: string): Promise<void>;
  /** Removes finished records whose `expiresAt` has passed; returns how many. */
  abstract evictExpired(now: number): Promise<number>;
}
