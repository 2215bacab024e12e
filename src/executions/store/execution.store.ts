import type { ExecutionRecord } from '../model/execution-record';
import type { RunSpec } from '../model/run-spec';
import type { JournalEntry } from '../../runtime/run-journal';
import type { ExecutionStatus, ExecutionTransition, TransitionOutcome } from '../model/execution-state';

/** A page of one owner's executions: newest first, strictly after the cursor `(createdAt, id)`. */
export interface OwnerExecutionsQuery {
  statuses: readonly ExecutionStatus[];
  limit: number;
  after?: { createdAt: number; id: string };
}

/** A durable execution's owner replica and what re-running it takes (ignored by the memory store). */
export interface DurableRun {
  /** The replica that runs it; null: released, for any replica to claim. */
  replica: string | null;
  spec: RunSpec;
  /**
   * What the run journaled before its record was written (a run made durable late): written with the
   * record, in the same statement, so a replica that finds the record finds them too.
   */
  journal?: readonly JournalEntry[];
}

/**
 * Where executions live between a workflow and the faces that poll it. Abstract class so it is also
 * the DI token. Two adapters: memory (one process) and PostgreSQL (several replicas share it; Redis
 * carries their events, not the records). `execution-store.contract.ts` holds the tests both pass.
 */
export abstract class ExecutionStore {
  abstract create(record: ExecutionRecord, durable?: DurableRun): Promise<void>;
  abstract get(id: string): Promise<ExecutionRecord | undefined>;
  /**
   * The record to read and not change (status polls are hot): an adapter that keeps records in
   * memory hands out the one it keeps instead of a copy. By default, `get`.
   */
  peek(id: string): Promise<Readonly<ExecutionRecord> | undefined> {
    return this.get(id);
  }
  /**
   * A record this replica wrote last and that no other replica can change (a running one that asks
   * nobody, own-records.ts), as committed; undefined when the adapter keeps none (the memory store's
   * `peek` is memory already). Served only for a run this replica runs and still holds.
   */
  held(_id: string): Readonly<ExecutionRecord> | undefined {
    return undefined;
  }
  /**
   * The record as this replica last wrote or read it, possibly out of date (another replica may have
   * changed it since): what a change is checked against before `apply(id, transition, seen)`, whose
   * compare-and-set tells. Never shown to a client. Undefined when the adapter keeps none (the memory
   * store's `get` is memory already).
   */
  recent(_id: string): Readonly<ExecutionRecord> | undefined {
    return undefined;
  }
  /** Forgets the copies `held` keeps of these records: another replica may go on with them. */
  forget(_ids: Iterable<string>): void {}
  /**
   * Applies one transition atomically with `applyTransition` (so closing an interaction is a
   * compare-and-set: the first answer, timeout or cancel wins). `not_found` for an unknown id.
   * `seen`: the record as the caller read it (an answer checks it against its prompt); an adapter may
   * apply the transition to it without reading it again when it is still what the store holds, and
   * tell the replica running the run what it wrote, for that one's next write to start from.
   */
  abstract apply(
    id: string,
    transition: ExecutionTransition,
    seen?: Readonly<ExecutionRecord>,
  ): Promise<TransitionOutcome>;
  abstract delete(id: string): Promise<void>;
  /**
   * Executions waiting for a person (interaction or OAuth): all of them, or one owner's. A count under
   * `cachedBelow` may be up to a second old (waiting-counts.ts); by default it is read now.
   */
  abstract countWaiting(ownerId?: string | null, cachedBelow?: number): Promise<number>;
  /** Executions waiting for a person that were started from one client address (`cachedBelow`: as above). */
  abstract countWaitingFrom(clientAddress: string, cachedBelow?: number): Promise<number>;
  /** One owner's executions in the given statuses (the approvals inbox), newest first. */
  abstract listOwned(ownerId: string, query: OwnerExecutionsQuery): Promise<ExecutionRecord[]>;
  /** Removes finished records whose `expiresAt` has passed; returns their ids. */
  abstract evictExpired(now: number): Promise<string[]>;
}
