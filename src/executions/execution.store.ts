import type { CloseOutcome, ExecutionRecord, InteractionRecord } from './execution-record';

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
  /** Records a new open interaction and makes it the execution's current one (interaction_required). */
  abstract openInteraction(id: string, interactionId: string, interaction: InteractionRecord): Promise<void>;
  /**
   * Atomically closes an open interaction (compare-and-set: the first answer, timeout or cancel wins)
   * and puts the execution back to running.
   */
  abstract closeInteraction(
    id: string,
    interactionId: string,
    status: Exclude<InteractionRecord['status'], 'open'>,
  ): Promise<CloseOutcome>;
  /** Executions waiting for a person (interaction or OAuth): all of them, or one owner's. */
  abstract countWaiting(ownerId?: string | null): Promise<number>;
  /** Executions waiting for a person that were started from one client address. */
  abstract countWaitingFrom(clientAddress: string): Promise<number>;
  /** Removes finished records whose `expiresAt` has passed; returns their ids. */
  abstract evictExpired(now: number): Promise<string[]>;
}
