import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import * as oauth from 'oauth4webapi';
import { OAuth2AuthCodeFlowConfig } from '../config/authentication.schema';
import { ServerConfig } from '../config/server-config';
import type { ExecutionEventBody } from '../runtime/execution-event';
import { ExecutionFinished } from '../core/events/execution-events';
import type { Identity } from '../core/identity/identity';
import { anonymousOAuthAllowed } from '../core/identity/identity.resolver';
import { validatePlain } from '../core/validation/validation-issues';
import type { AbortWatch } from '../runtime/lazy-abort';
import type { AuthenticateOptions, AuthResult } from '../runtime/workflow-context';
import { startUrl } from './flow-binding';
import { awaitFlowOutcome } from './flow-outcome-wait';
import {
  OAuthCallbacks,
  type CallbackOutcome,
  type Confirmation,
  type StartOutcome,
} from './oauth-callbacks';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { splitScopes } from '../runtime/mcp/mcp-auth.config';
import { McpOAuth2Config } from '../runtime/mcp/mcp-oauth2.config';
import { policyFetch } from '../runtime/mcp/policy-fetch';
import { McpOAuthClient, type ClientRegistrations } from './mcp-oauth-client';
import { OAuthClient, type AuthCodeClient, type TokenSet } from './oauth-client';
import { OAuthFlowError } from './oauth-flow-error';
import { OAuthTokens } from './oauth-tokens';
import type { OAuthFlowWait } from './oauth-wait';
import { OAuthWakeups } from './oauth-wakeups';
import { PendingOAuthFlows, type FlowRecord, type PendingFlow } from './pending-oauth-flows';

export { OAuthFlowError } from './oauth-flow-error';
export type { CallbackOutcome, Confirmation, ConfirmPage, StartOutcome } from './oauth-callbacks';

/** A token is refreshed (or the flow restarted) when it expires within this margin. */
const REFRESH_MARGIN_MS = 60_000;

/** The execution asking, as the engine hands it over. */
export interface AuthorizingExecution {
  id: string;
  identity: Identity;
  /** The workflow that asks (its type), named on an anonymous flow's confirmation page. */
  workflow?: string;
  publish(event: ExecutionEventBody): void;
  /** Records the flow's wait (pending, then resolved) on the execution. */
  record(wait: OAuthFlowWait): Promise<unknown>;
}

/**
 * OAuth2 authorization-code flows for workflows acting as their user at a third-party API. Tokens are
 * kept per user and provider (an anonymous caller's only for its execution) in the token store, shared
 * by every replica with `store: postgres`; the callback may land on any replica, which settles the flow
 * and wakes the replica whose workflow waits. Secrets never leave here.
 */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger('OAuth');
  private readonly providers = new Map<string, AuthCodeClient>();
  /**
   * The flows a workflow of this process waits on (or waited on), by execution: a replayed
   * `ctx.authenticate` (a replica that took the execution over) resumes the flows its first run opened,
   * in order, and a workflow asking again in the same run opens a new one.
   */
  private readonly claimed = new Map<string, Set<string>>();
  /** Anonymous executions of this process, whose tokens are dropped when they end. */
  private readonly anonymous = new Set<string>();
  private readonly callbacks: OAuthCallbacks;
  /** `general.auth.anonymous_oauth`. */
  private readonly anonymousAllowed: boolean;
  readonly counts = { started: 0, completed: 0, failed: 0 };

  constructor(
    config: ServerConfig,
    private readonly flows: PendingOAuthFlows,
    private readonly tokens: OAuthTokens,
    private readonly wakeups: OAuthWakeups,
  ) {
    const frontEnd = config.frontEnd;
    const base = frontEnd.public_base_url ?? `http://${frontEnd.host}:${frontEnd.port}`;
    const outbound = policyFetch(new OutboundPolicy(config.app.settings.general.outbound));
    // Kept as the token store keeps tokens (sealed with store: postgres), under an owner no user has.
    const registrations: ClientRegistrations = {
      get: async (key) => (await tokens.get(key))?.accessToken,
      set: (key, registration) => tokens.set(key, { accessToken: registration }),
    };
    for (const [name, entry] of Object.entries(config.app.settings.authentication ?? {})) {
      const mcp = (entry as { _type?: unknown })._type === 'mcp_oauth2';
      const checked = validatePlain<McpOAuth2Config | OAuth2AuthCodeFlowConfig>(
        mcp ? McpOAuth2Config : OAuth2AuthCodeFlowConfig,
        mcp ? splitScopes(entry as Record<string, unknown>) : entry,
      );
      if (!checked.ok) continue; // the config loader already refused it
      const redirect = checked.value.redirect_uri ?? `${base}${frontEnd.oauth2_callback_path}`;
      this.providers.set(
        name,
        checked.value instanceof McpOAuth2Config
          ? new McpOAuthClient(name, checked.value, redirect, outbound, registrations)
          : new OAuthClient(name, checked.value as OAuth2AuthCodeFlowConfig, redirect),
      );
    }
    this.callbacks = new OAuthCallbacks(this.providers, flows, tokens, wakeups);
    this.anonymousAllowed = anonymousOAuthAllowed(config.general.auth);
  }

  /**
   * `ctx.authenticate(provider)`: a bearer header, from the flow an earlier run of this execution
   * opened (after a takeover), a held token, a refresh, or a new flow.
   */
  async authenticate(
    execution: AuthorizingExecution,
    providerName: string,
    cancel: AbortWatch,
    options: AuthenticateOptions = {},
  ): Promise<AuthResult> {
    const provider = this.providers.get(providerName);
    if (!provider) {
      const known = [...this.providers.keys()].join(', ') || 'none configured';
      throw new OAuthFlowError(`Unknown authentication provider "${providerName}" (known: ${known})`);
    }
    const anonymous = execution.identity.userId === null;
    if (anonymous && !this.anonymousAllowed) {
      throw new OAuthFlowError(
        `This workflow needs your authorization at "${providerName}", which this server asks only of identified callers: send your credentials and try again (general.auth.anonymous_oauth is off).`,
      );
    }
    if (anonymous) this.anonymous.add(execution.id);
    const earlier = await this.claimEarlierFlow(execution, providerName);
    if (earlier) {
      const resumed = await this.resumeFlow(execution, provider, earlier, cancel);
      if (resumed) return bearer(resumed);
    }
    const owner = ownerKey(execution, providerName);
    const executionId = anonymous ? execution.id : undefined;
    const held = await this.tokens.get(owner);
    // A token the API refused is never handed out again: refreshed, or the user is asked again.
    const refused = options.refused !== undefined && held?.accessToken === options.refused;
    const fresh = held?.expiresAt === undefined || held.expiresAt - Date.now() > REFRESH_MARGIN_MS;
    if (held && fresh && !refused) return bearer(held);
    if (refused && !held.refreshToken) await this.tokens.delete(owner);
    if (held?.refreshToken) {
      try {
        const refreshed = await provider.refresh(held.refreshToken);
        await this.tokens.set(owner, refreshed, executionId);
        return bearer(refreshed);
      } catch (err) {
        this.logger.warn(
          `Refreshing the ${providerName} token failed; asking the user again: ${(err as Error).message}`,
        );
        await this.tokens.delete(owner);
      }
    }
    return bearer(await this.runFlow(execution, provider, owner, cancel));
  }

  /**
   * Claims the oldest flow of this execution and provider that no workflow of this process has waited
   * on (and that the same caller opened). Picked and claimed in one step, so two calls side by side
   * never share one.
   */
  private async claimEarlierFlow(
    execution: AuthorizingExecution,
    provider: string,
  ): Promise<FlowRecord | undefined> {
    const flows = await this.flows.forExecution(execution.id, provider);
    const mine = this.claimed.get(execution.id);
    const flow = flows.find((f) => !mine?.has(f.state) && f.ownerId === execution.identity.userId);
    if (flow) this.claim(execution.id, flow.state);
    return flow;
  }

  private claim(executionId: string, state: string): void {
    let mine = this.claimed.get(executionId);
    if (!mine) this.claimed.set(executionId, (mine = new Set()));
    mine.add(state);
  }

  private async runFlow(
    execution: AuthorizingExecution,
    provider: AuthCodeClient,
    owner: string,
    cancel: AbortWatch,
  ): Promise<TokenSet> {
    if (cancel.aborted) throw cancel.abortReason;
    const state = oauth.generateRandomState(); // 32 random bytes
    const { url: providerUrl, codeVerifier } = await provider.begin(state);
    const authUrl = startUrl(provider.redirectUri, state);
    const now = Date.now();
    const flow: PendingFlow = {
      state,
      executionId: execution.id,
      owner,
      ownerId: execution.identity.userId,
      provider: provider.name,
      workflow: execution.workflow,
      providerUrl,
      codeVerifier,
      createdAt: now,
      expiresAt: now + provider.timeoutSeconds * 1000,
    };
    this.counts.started++;
    this.claim(execution.id, state);
    await this.flows.put(flow);
    await execution.record({ kind: 'oauth_pending', oauth: { authUrl, state, provider: provider.name } });
    execution.publish({ kind: 'oauth_required', authUrl, state, provider: provider.name });
    return this.waitForFlow(execution, provider, flow, cancel);
  }

  /**
   * A flow an earlier run of this execution opened: waits on it again (same state, same link), or
   * takes its outcome if the person finished it meanwhile. Undefined when it granted tokens that are
   * gone (asked again, as for a new execution). Its `oauth_required` is published again: the replica
   * that opened it may have stopped before its event reached the log, and a client following the log
   * would wait for ever; the engine drops it where the log holds it already (as for a prompt).
   */
  private async resumeFlow(
    execution: AuthorizingExecution,
    provider: AuthCodeClient,
    flow: FlowRecord,
    cancel: AbortWatch,
  ): Promise<TokenSet | undefined> {
    if (flow.status === 'settled') {
      await execution.record({ kind: 'oauth_resolved' });
      if (!flow.outcome.ok) throw new OAuthFlowError(flow.outcome.message);
      return this.tokens.get(flow.owner);
    }
    const authUrl = startUrl(provider.redirectUri, flow.state);
    await execution.record({
      kind: 'oauth_pending',
      oauth: { authUrl, state: flow.state, provider: provider.name },
    });
    execution.publish({ kind: 'oauth_required', authUrl, state: flow.state, provider: provider.name });
    return this.waitForFlow(execution, provider, flow, cancel);
  }

  private async waitForFlow(
    execution: AuthorizingExecution,
    provider: AuthCodeClient,
    flow: PendingFlow,
    cancel: AbortWatch,
  ): Promise<TokenSet> {
    const timeout = `Authentication flow timed out after ${provider.timeoutSeconds} seconds`;
    try {
      const outcome = await awaitFlowOutcome(this.flows, this.wakeups, flow, cancel, timeout);
      if (outcome instanceof Error) throw outcome;
      if (!outcome.ok) throw new OAuthFlowError(outcome.message);
      const tokens = await this.tokens.get(flow.owner);
      if (!tokens) throw new OAuthFlowError('Authentication failed: the granted token could not be read');
      this.counts.completed++;
      return tokens;
    } catch (err) {
      this.counts.failed++;
      throw err;
    } finally {
      await execution.record({ kind: 'oauth_resolved' });
      execution.publish({ kind: 'oauth_resolved', state: flow.state, provider: provider.name });
    }
  }

  /** `GET /auth/redirect/start?state=…`: see OAuthCallbacks.begin. */
  begin(state: string, caller: Identity): Promise<StartOutcome> {
    return this.callbacks.begin(state, caller);
  }

  /** `POST /auth/redirect/start?state=…`: see OAuthCallbacks.confirm. */
  confirm(state: string, caller: Identity, presented: Confirmation): Promise<StartOutcome> {
    return this.callbacks.confirm(state, caller, presented);
  }

  /** `GET /auth/redirect`: see OAuthCallbacks.callback. */
  callback(
    query: URLSearchParams,
    caller: Identity,
    cookies: Record<string, string>,
  ): Promise<CallbackOutcome> {
    return this.callbacks.callback(query, caller, cookies);
  }

  /** Forgets an ended execution's flows, and an anonymous caller's tokens with it. */
  @OnEvent(ExecutionFinished.event)
  executionFinished({ executionId }: ExecutionFinished): void {
    this.claimed.delete(executionId);
    if (!this.anonymous.delete(executionId)) return;
    this.tokens.forgetExecution(executionId).catch((err: unknown) => {
      this.logger.warn(`Could not drop an ended execution's OAuth tokens: ${(err as Error).message}`);
    });
  }
}

function ownerKey(execution: AuthorizingExecution, provider: string): string {
  const { userId } = execution.identity;
  return userId === null ? `execution:${execution.id}:${provider}` : `user:${userId}:${provider}`;
}

function bearer(tokens: TokenSet): AuthResult {
  return { headers: { Authorization: `Bearer ${tokens.accessToken}` } };
}
