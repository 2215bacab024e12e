import { Injectable, Logger } from '@nestjs/common';
import * as oauth from 'oauth4webapi';
import { OAuth2AuthCodeFlowConfig } from '../config/authentication.schema';
import { ServerConfig } from '../config/server-config';
import type { ExecutionEventBody } from '../runtime/execution-event';
import type { Identity } from '../core/identity/identity';
import { validatePlain } from '../core/validation/validation-issues';
import type { AbortWatch } from '../runtime/lazy-abort';
import type { AuthResult } from '../runtime/workflow-context';
import { bindingCookieName, bindingMatches, newBinding, startUrl, type FlowBinding } from './flow-binding';
import { awaitFlowOutcome } from './flow-outcome-wait';
import { OAuthClient, TokenEndpointError, type TokenSet } from './oauth-client';
import { OAuthFlowError } from './oauth-flow-error';
import { OAuthTokens } from './oauth-tokens';
import type { OAuthFlowWait } from './oauth-wait';
import { OAuthWakeups } from './oauth-wakeups';
import {
  PendingOAuthFlows,
  type FlowOutcome,
  type FlowRecord,
  type PendingFlow,
} from './pending-oauth-flows';

export { OAuthFlowError } from './oauth-flow-error';

/** A token is refreshed (or the flow restarted) when it expires within this margin. */
const REFRESH_MARGIN_MS = 60_000;

/** The execution asking, as the engine hands it over. */
export interface AuthorizingExecution {
  id: string;
  identity: Identity;
  publish(event: ExecutionEventBody): void;
  /** Records the flow's wait (pending, then resolved) on the execution. */
  record(wait: OAuthFlowWait): Promise<unknown>;
}

/** What `/auth/redirect` answers: a status and a small page for the popup. */
export interface CallbackOutcome {
  status: 200 | 400 | 403 | 500 | 502;
  message: string;
  /** The flow's binding cookie, to clear once the callback has used it. */
  clearCookie?: string;
}

/** What `/auth/redirect/start` answers: a redirect to the provider with the binding cookie, or a page. */
export type StartOutcome =
  | { status: 302; location: string; binding: FlowBinding; maxAgeSeconds: number }
  | { status: 400 | 403; message: string };

const INVALID_STATE = 'Invalid state. Please restart the authentication process.';

/**
 * OAuth2 authorization-code flows for workflows acting as their user at a third-party API. Tokens are
 * kept per user and provider (an anonymous caller's only for its execution) in the token store, shared
 * by every replica with `store: postgres`; the callback may land on any replica, which settles the flow
 * and wakes the replica whose workflow waits. Secrets never leave here.
 */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger('OAuth');
  private readonly providers = new Map<string, OAuthClient>();
  /**
   * The flows a workflow of this process waits on (or waited on), by execution: a replayed
   * `ctx.authenticate` (a replica that took the execution over) resumes the flows its first run opened,
   * in order, and a workflow asking again in the same run opens a new one.
   */
  private readonly claimed = new Map<string, Set<string>>();
  /** Anonymous executions of this process, whose tokens are dropped when they end. */
  private readonly anonymous = new Set<string>();
  readonly counts = { started: 0, completed: 0, failed: 0 };

  constructor(
    config: ServerConfig,
    private readonly flows: PendingOAuthFlows,
    private readonly tokens: OAuthTokens,
    private readonly wakeups: OAuthWakeups,
  ) {
    const frontEnd = config.frontEnd;
    const base = frontEnd.public_base_url ?? `http://${frontEnd.host}:${frontEnd.port}`;
    for (const [name, entry] of Object.entries(config.app.settings.authentication ?? {})) {
      const checked = validatePlain(OAuth2AuthCodeFlowConfig, entry);
      if (!checked.ok) continue; // the config loader already refused it
      const redirect = checked.value.redirect_uri ?? `${base}${frontEnd.oauth2_callback_path}`;
      this.providers.set(name, new OAuthClient(name, checked.value, redirect));
    }
  }

  /**
   * `ctx.authenticate(provider)`: a bearer header, from the flow an earlier run of this execution
   * opened (after a takeover), a held token, a refresh, or a new flow.
   */
  async authenticate(
    execution: AuthorizingExecution,
    providerName: string,
    cancel: AbortWatch,
  ): Promise<AuthResult> {
    const provider = this.providers.get(providerName);
    if (!provider) {
      const known = [...this.providers.keys()].join(', ') || 'none configured';
      throw new OAuthFlowError(`Unknown authentication provider "${providerName}" (known: ${known})`);
    }
    const anonymous = execution.identity.userId === null;
    if (anonymous) this.anonymous.add(execution.id);
    const earlier = await this.unclaimedFlow(execution.id, providerName);
    if (earlier) {
      const resumed = await this.resumeFlow(execution, provider, earlier, cancel);
      if (resumed) return bearer(resumed);
    }
    const owner = ownerKey(execution, providerName);
    const executionId = anonymous ? execution.id : undefined;
    const held = await this.tokens.get(owner);
    if (held && (held.expiresAt === undefined || held.expiresAt - Date.now() > REFRESH_MARGIN_MS)) {
      return bearer(held);
    }
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

  /** The oldest flow of this execution and provider no workflow of this process has waited on. */
  private async unclaimedFlow(executionId: string, provider: string): Promise<FlowRecord | undefined> {
    const mine = this.claimed.get(executionId);
    const flows = await this.flows.forExecution(executionId, provider);
    return flows.find((flow) => !mine?.has(flow.state));
  }

  private claim(executionId: string, state: string): void {
    let mine = this.claimed.get(executionId);
    if (!mine) this.claimed.set(executionId, (mine = new Set()));
    mine.add(state);
  }

  private async runFlow(
    execution: AuthorizingExecution,
    provider: OAuthClient,
    owner: string,
    cancel: AbortWatch,
  ): Promise<TokenSet> {
    if (cancel.aborted) throw cancel.abortReason;
    const state = oauth.generateRandomState(); // 32 random bytes
    const codeVerifier = provider.usesPkce ? oauth.generateRandomCodeVerifier() : undefined;
    const providerUrl = await provider.authorizationUrl(state, codeVerifier);
    const authUrl = startUrl(provider.redirectUri, state);
    const now = Date.now();
    const flow: PendingFlow = {
      state,
      executionId: execution.id,
      owner,
      ownerId: execution.identity.userId,
      provider: provider.name,
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
   * A flow an earlier run of this execution opened: waits on it again (same state, same link, no
   * second `oauth_required`), or takes its outcome if the person finished it meanwhile. Undefined when
   * it granted tokens that are gone (asked again, as for a new execution).
   */
  private async resumeFlow(
    execution: AuthorizingExecution,
    provider: OAuthClient,
    flow: FlowRecord,
    cancel: AbortWatch,
  ): Promise<TokenSet | undefined> {
    this.claim(execution.id, flow.state);
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
    return this.waitForFlow(execution, provider, flow, cancel);
  }

  private async waitForFlow(
    execution: AuthorizingExecution,
    provider: OAuthClient,
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

  /**
   * `GET /auth/redirect/start?state=…`, the `auth_url` clients hand to the user's browser: binds the flow
   * to that browser and sends it on to the provider. A flow an identified user started opens only for
   * that user (who may open it again, moving the binding); an anonymous one for the first browser only.
   */
  async begin(state: string, caller: Identity): Promise<StartOutcome> {
    const flow = await this.flows.get(state);
    if (!flow) return { status: 400, message: INVALID_STATE };
    if (flow.ownerId !== null && caller.userId !== flow.ownerId) {
      return {
        status: 403,
        message:
          'This authorization link belongs to another user. Open it in the browser where you are signed in as the user who asked for it.',
      };
    }
    if (flow.ownerId === null && flow.binding) {
      return { status: 403, message: 'This authorization link was already opened in another browser.' };
    }
    const binding = newBinding(state);
    if (!(await this.flows.bind(state, binding.value))) return { status: 400, message: INVALID_STATE };
    const maxAgeSeconds = Math.max(1, Math.ceil((flow.expiresAt - Date.now()) / 1000));
    return { status: 302, location: flow.providerUrl, binding, maxAgeSeconds };
  }

  /**
   * `GET /auth/redirect`: the provider sent a browser back with a code (or an error). Only the browser
   * the flow was bound to (its cookie), or the identified owner, may complete it; any other is refused
   * and the flow stays open for its owner, so a victim handed the link cannot feed the asker a code.
   */
  async callback(
    query: URLSearchParams,
    caller: Identity,
    cookies: Record<string, string>,
  ): Promise<CallbackOutcome> {
    const state = query.get('state') ?? '';
    const flow = await this.flows.get(state);
    if (!flow) return { status: 400, message: INVALID_STATE };
    const cookieName = bindingCookieName(state);
    const bound =
      bindingMatches(flow.binding, cookies[cookieName]) ||
      (flow.ownerId !== null && caller.userId === flow.ownerId);
    if (!bound) {
      return {
        status: 403,
        message:
          'This authorization was not started in this browser. Open the link the application gave you, in the browser that asked for it.',
      };
    }
    // Usable once, whatever happens next: of two replicas the callback reaches, one goes on.
    if (!(await this.flows.take(state))) return { status: 400, message: INVALID_STATE };
    const done = async (outcome: CallbackOutcome, settled: FlowOutcome): Promise<CallbackOutcome> => {
      await this.settle(state, settled);
      return { ...outcome, clearCookie: cookieName };
    };
    const error = query.get('error');
    if (error) {
      const description = query.get('error_description');
      const message = `Authorization was refused by the provider: ${error}${description ? ` (${description})` : ''}`;
      return done({ status: 502, message }, { ok: false, message });
    }
    try {
      const provider = this.providers.get(flow.provider);
      if (!provider) throw new Error(`Unknown authentication provider "${flow.provider}"`);
      const tokens = await provider.exchange(query, state, flow.codeVerifier);
      await this.tokens.set(flow.owner, tokens, flow.ownerId === null ? flow.executionId : undefined);
      const message = 'Authentication complete. You can close this window.';
      return done({ status: 200, message }, { ok: true });
    } catch (err) {
      const message =
        err instanceof TokenEndpointError
          ? `Authentication failed: ${err.message}`
          : 'Authentication failed: the callback could not be processed';
      const status = err instanceof TokenEndpointError ? 502 : 500;
      return done({ status, message }, { ok: false, message });
    }
  }

  /** Records the flow's outcome and wakes its workflow, wherever it waits. */
  private async settle(state: string, outcome: FlowOutcome): Promise<void> {
    await this.flows.settle(state, outcome);
    // The waiter also re-reads the flow at its expiry: a wake-up lost with Redis delays, never loses.
    await this.wakeups.publish(state, outcome).catch((err: unknown) => {
      this.logger.warn(`Could not publish an OAuth wake-up: ${(err as Error).message}`);
    });
  }

  /** Forgets an ended execution's flows, and an anonymous caller's tokens with it. */
  forgetExecution(executionId: string): void {
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
