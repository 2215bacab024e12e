import type { TokenSet } from './oauth-client';

/**
 * The OAuth tokens workflows act with, by owner: `user:<id>:<provider>` for an identified user,
 * `execution:<id>:<provider>` for an anonymous caller (dropped when that execution ends). Abstract
 * class so it is also the DI token; memory for one process, Postgres (sealed) for several replicas.
 * `oauth-tokens.contract.ts` holds the tests every adapter passes.
 */
export abstract class OAuthTokens {
  abstract get(owner: string): Promise<TokenSet | undefined>;
  /** Stores (or replaces) the owner's tokens; `executionId` for an anonymous caller's, to drop them with it. */
  abstract set(owner: string, tokens: TokenSet, executionId?: string): Promise<void>;
  abstract delete(owner: string): Promise<void>;
  /** Drops an anonymous caller's tokens once its execution has ended. */
  abstract forgetExecution(executionId: string): Promise<void>;
}

export class MemoryOAuthTokens extends OAuthTokens {
  private readonly tokens = new Map<string, TokenSet>();
  /** Anonymous callers' owners by execution, so an ending execution drops its own without a scan. */
  private readonly byExecution = new Map<string, Set<string>>();

  async get(owner: string): Promise<TokenSet | undefined> {
    const held = this.tokens.get(owner);
    return held && { ...held };
  }

  async set(owner: string, tokens: TokenSet, executionId?: string): Promise<void> {
    this.tokens.set(owner, { ...tokens });
    if (executionId === undefined) return;
    let owners = this.byExecution.get(executionId);
    if (!owners) this.byExecution.set(executionId, (owners = new Set()));
    owners.add(owner);
  }

  async delete(owner: string): Promise<void> {
    this.tokens.delete(owner);
  }

  async forgetExecution(executionId: string): Promise<void> {
    for (const owner of this.byExecution.get(executionId) ?? []) this.tokens.delete(owner);
    this.byExecution.delete(executionId);
  }
}
