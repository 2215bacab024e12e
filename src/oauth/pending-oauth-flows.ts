import { timingSafeEqual } from 'node:crypto';

/** An authorization-code flow waiting for its callback, as data any process can read. */
export interface PendingFlow {
  /** The OAuth `state`: the flow's key. */
  state: string;
  executionId: string;
  /** Where the tokens go: `user:<id>:<provider>` or `execution:<id>:<provider>`. */
  owner: string;
  /** The identified user whose execution asked; null for an anonymous one. */
  ownerId: string | null;
  provider: string;
  /** The workflow that asked (its type), named on the confirmation page of an anonymous flow. */
  workflow?: string;
  /** The provider's authorization URL; clients get this server's start link, which redirects here. */
  providerUrl: string;
  /**
   * Set when a browser opens the start link: the SHA-256 of the cookie it was given, which the callback
   * must bring back (a stored flow never holds the cookie's value itself).
   */
  binding?: string;
  /**
   * An anonymous flow's confirmation page, as last shown: the SHA-256 of its single-use token (the
   * page's form and cookie carry the token itself). Confirming it binds the flow.
   */
  confirm?: string;
  /** The PKCE verifier; the PostgreSQL adapter keeps it sealed with the token key. */
  codeVerifier?: string;
  /** Epoch ms the flow was opened: an execution's flows are replayed in this order. */
  createdAt: number;
  expiresAt: number;
}

/** How a flow ended: the tokens are in the token store (never here), or why it failed. */
export type FlowOutcome = { ok: true } | { ok: false; message: string };

/**
 * Where a flow stands: `pending` (waiting for its callback), `taken` (a callback or the waiter's
 * timeout took it and is finishing it), `settled` (its outcome is known).
 */
export type FlowRecord = PendingFlow &
  ({ status: 'pending' | 'taken'; outcome?: undefined } | { status: 'settled'; outcome: FlowOutcome });

/** Settled and abandoned flows are kept this long past their expiry, for a replica that replays them. */
export const FLOW_RETENTION_MS = 3_600_000;

/**
 * Pending OAuth flows by state. Abstract class so it is also the DI token; memory for one process.
 * `pending-oauth-flows.contract.ts` holds the tests every adapter passes.
 */
export abstract class PendingOAuthFlows {
  abstract put(flow: PendingFlow): Promise<void>;
  /** The flow while it waits for its callback: not taken, not past `expiresAt`. */
  abstract get(state: string, now?: number): Promise<PendingFlow | undefined>;
  /** Records the browser the flow was opened in; false when the flow is gone. */
  abstract bind(state: string, binding: string): Promise<boolean>;
  /**
   * Records the token of the confirmation page just shown for a flow no browser is bound to yet (the
   * page shown before replaces it); false when the flow is gone or already bound.
   */
  abstract prepare(state: string, confirm: string): Promise<boolean>;
  /**
   * Binds a flow to the browser that confirmed it, if `confirm` is the token its page carries now
   * (compare-and-set: the token is used once, and the flow was bound by nobody else meanwhile).
   */
  abstract confirm(state: string, confirm: string, binding: string): Promise<boolean>;
  /** Takes a pending flow (compare-and-set): whoever takes it first finishes it, once. */
  abstract take(state: string): Promise<PendingFlow | undefined>;
  /** Records how a taken flow ended (compare-and-set on `taken`); false when it was not taken or is settled. */
  abstract settle(state: string, outcome: FlowOutcome): Promise<boolean>;
  /** The flow whatever its status (kept until FLOW_RETENTION_MS past its expiry). */
  abstract find(state: string): Promise<FlowRecord | undefined>;
  /** An execution's flows with `provider`, oldest first: what a replayed `ctx.authenticate` waits on. */
  abstract forExecution(executionId: string, provider: string): Promise<FlowRecord[]>;
}

export class MemoryPendingOAuthFlows extends PendingOAuthFlows {
  private readonly flows = new Map<string, FlowRecord>();
  /** States by execution, so a replayed authenticate finds its flows without a scan. */
  private readonly byExecution = new Map<string, Set<string>>();

  async put(flow: PendingFlow): Promise<void> {
    const now = Date.now();
    for (const [state, kept] of this.flows) {
      // Oldest first (insertion order, near enough): stop at the first one still kept.
      if (kept.expiresAt >= now - FLOW_RETENTION_MS) break;
      this.remove(state, kept.executionId);
    }
    this.flows.delete(flow.state);
    this.flows.set(flow.state, { ...flow, status: 'pending' });
    let states = this.byExecution.get(flow.executionId);
    if (!states) this.byExecution.set(flow.executionId, (states = new Set()));
    states.add(flow.state);
  }

  private remove(state: string, executionId: string): void {
    this.flows.delete(state);
    const states = this.byExecution.get(executionId);
    states?.delete(state);
    if (states?.size === 0) this.byExecution.delete(executionId);
  }

  async get(state: string, now = Date.now()): Promise<PendingFlow | undefined> {
    const flow = this.flows.get(state);
    return flow?.status === 'pending' && flow.expiresAt > now ? asPending(flow) : undefined;
  }

  async bind(state: string, binding: string): Promise<boolean> {
    const flow = this.flows.get(state);
    if (flow?.status !== 'pending') return false;
    flow.binding = binding;
    return true;
  }

  async prepare(state: string, confirm: string): Promise<boolean> {
    const flow = this.flows.get(state);
    if (flow?.status !== 'pending' || flow.binding) return false;
    flow.confirm = confirm;
    return true;
  }

  async confirm(state: string, confirm: string, binding: string): Promise<boolean> {
    const flow = this.flows.get(state);
    if (flow?.status !== 'pending' || flow.binding || !sameToken(flow.confirm, confirm)) return false;
    flow.confirm = undefined;
    flow.binding = binding;
    return true;
  }

  async take(state: string): Promise<PendingFlow | undefined> {
    const flow = this.flows.get(state);
    if (flow?.status !== 'pending') return undefined;
    this.flows.set(state, { ...asPending(flow), status: 'taken' });
    return asPending(flow);
  }

  async settle(state: string, outcome: FlowOutcome): Promise<boolean> {
    const flow = this.flows.get(state);
    if (flow?.status !== 'taken') return false;
    this.flows.set(state, { ...asPending(flow), status: 'settled', outcome: { ...outcome } });
    return true;
  }

  async find(state: string): Promise<FlowRecord | undefined> {
    const flow = this.flows.get(state);
    return flow && structuredClone(flow);
  }

  async forExecution(executionId: string, provider: string): Promise<FlowRecord[]> {
    const states = this.byExecution.get(executionId);
    if (!states) return [];
    return [...states]
      .map((state) => this.flows.get(state)!)
      .filter((f) => f.provider === provider)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((f) => structuredClone(f));
  }
}

/** Whether a presented confirmation token hash is the one recorded (constant time). */
export function sameToken(expected: string | undefined, presented: string): boolean {
  if (!expected) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The flow's own data, without its status. */
export function asPending(record: FlowRecord | PendingFlow): PendingFlow {
  const { status: _status, outcome: _outcome, ...flow } = record as FlowRecord;
  return { ...flow };
}
