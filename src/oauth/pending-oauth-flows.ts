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
  /** The provider's authorization URL; clients get this server's start link, which redirects here. */
  providerUrl: string;
  /** Set when a browser opens the start link; the callback must then bring its cookie back. */
  binding?: string;
  codeVerifier?: string;
  expiresAt: number;
}

/**
 * Pending OAuth flows by state. Abstract class so it is also the DI token; memory for one process.
 * `pending-oauth-flows.contract.ts` holds the tests every adapter passes.
 */
export abstract class PendingOAuthFlows {
  abstract put(flow: PendingFlow): Promise<void>;
  /** The flow, unless unknown or past `expiresAt`. */
  abstract get(state: string, now?: number): Promise<PendingFlow | undefined>;
  /** Records the browser the flow was opened in; false when the flow is gone. */
  abstract bind(state: string, binding: string): Promise<boolean>;
  /** Removes and returns the flow: whoever takes it first completes (or fails) it, once. */
  abstract take(state: string): Promise<PendingFlow | undefined>;
}

export class MemoryPendingOAuthFlows extends PendingOAuthFlows {
  private readonly flows = new Map<string, PendingFlow>();

  async put(flow: PendingFlow): Promise<void> {
    this.flows.set(flow.state, { ...flow });
  }

  async get(state: string, now = Date.now()): Promise<PendingFlow | undefined> {
    const flow = this.flows.get(state);
    return flow && flow.expiresAt > now ? { ...flow } : undefined;
  }

  async bind(state: string, binding: string): Promise<boolean> {
    const flow = this.flows.get(state);
    if (!flow) return false;
    flow.binding = binding;
    return true;
  }

  async take(state: string): Promise<PendingFlow | undefined> {
    const flow = this.flows.get(state);
    this.flows.delete(state);
    return flow;
  }
}
