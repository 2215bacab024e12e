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
import { OAuthClient, TokenEndpointError, type TokenSet } from './oauth-client';
import type { OAuthFlowWait } from './oauth-wait';
import { PendingOAuthFlows } from './pending-oauth-flows';

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

/** The workflow waiting on a flow, in the process that runs it. */
interface Waiter {
  resolve(tokens: TokenSet): void;
  reject(err: Error): void;
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

export class OAuthFlowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}

/**
 * OAuth2 authorization-code flows for workflows acting as their user at a third-party API. Tokens are
 * kept per user and provider (an anonymous caller's only for its execution); secrets never leave here.
 */
@Injectable()
export class OAuthService {
  private readonly logger = new Logger('OAuth');
  private readonly providers = new Map<string, OAuthClient>();
  /** Identified users' tokens, by `user:<id>:<provider>`. */
  private readonly tokens = new Map<string, TokenSet>();
  /** Anonymous callers' tokens, by execution, dropped when it ends. */
  private readonly executionTokens = new Map<string, Map<string, TokenSet>>();
  private readonly waiters = new Map<string, Waiter>();
  readonly counts = { started: 0, completed: 0, failed: 0 };

  constructor(
    config: ServerConfig,
    private readonly flows: PendingOAuthFlows,
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

  /** `ctx.authenticate(provider)`: a bearer header, from a held token, a refresh, or a new flow. */
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
    const store = this.tokenStore(execution);
    const owner = ownerKey(execution, providerName);
    const held = store.get(owner);
    if (held && (held.expiresAt === undefined || held.expiresAt - Date.now() > REFRESH_MARGIN_MS)) {
      return bearer(held);
    }
    if (held?.refreshToken) {
      try {
        const refreshed = await provider.refresh(held.refreshToken);
        store.set(owner, refreshed);
        return bearer(refreshed);
      } catch (err) {
        this.logger.warn(
          `Refreshing the ${providerName} token failed; asking the user again: ${(err as Error).message}`,
        );
        store.delete(owner);
      }
    }
    const tokens = await this.runFlow(execution, provider, owner, cancel);
    store.set(owner, tokens);
    return bearer(tokens);
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
    const timeoutMs = provider.timeoutSeconds * 1000;
    this.counts.started++;
    const done = new Promise<TokenSet>((resolve, reject) => this.waiters.set(state, { resolve, reject }));
    await this.flows.put({
      state,
      executionId: execution.id,
      owner,
      ownerId: execution.identity.userId,
      provider: provider.name,
      providerUrl,
      codeVerifier,
      expiresAt: Date.now() + timeoutMs,
    });
    await execution.record({ kind: 'oauth_pending', oauth: { authUrl, state, provider: provider.name } });
    execution.publish({ kind: 'oauth_required', authUrl, state, provider: provider.name });
    // A callback that took the flow first is exchanging its code: that outcome wins.
    const fail = async (err: Error) => {
      if (await this.flows.take(state)) this.wake(state, err);
    };
    const timer = setTimeout(
      () =>
        void fail(
          new OAuthFlowError(`Authentication flow timed out after ${provider.timeoutSeconds} seconds`),
        ),
      timeoutMs,
    );
    const stopWatching = cancel.onAbort((reason) => void fail(reason as Error));
    try {
      const tokens = await done;
      this.counts.completed++;
      return tokens;
    } catch (err) {
      this.counts.failed++;
      throw err;
    } finally {
      clearTimeout(timer);
      stopWatching();
      this.waiters.delete(state);
      await execution.record({ kind: 'oauth_resolved' });
      execution.publish({ kind: 'oauth_resolved', state, provider: provider.name });
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
    // Usable once, whatever happens next.
    if (!(await this.flows.take(state))) return { status: 400, message: INVALID_STATE };
    const provider = this.providers.get(flow.provider);
    const done = (outcome: CallbackOutcome): CallbackOutcome => ({ ...outcome, clearCookie: cookieName });
    const error = query.get('error');
    if (error) {
      const description = query.get('error_description');
      const message = `Authorization was refused by the provider: ${error}${description ? ` (${description})` : ''}`;
      this.wake(state, new OAuthFlowError(message));
      return done({ status: 502, message });
    }
    try {
      if (!provider) throw new Error(`Unknown authentication provider "${flow.provider}"`);
      const tokens = await provider.exchange(query, state, flow.codeVerifier);
      this.wake(state, tokens);
      return done({ status: 200, message: 'Authentication complete. You can close this window.' });
    } catch (err) {
      const message =
        err instanceof TokenEndpointError
          ? `Authentication failed: ${err.message}`
          : 'Authentication failed: the callback could not be processed';
      this.wake(state, new OAuthFlowError(message));
      return done({ status: err instanceof TokenEndpointError ? 502 : 500, message });
    }
  }

  /** Hands the flow's outcome to the workflow waiting on it. */
  private wake(state: string, outcome: TokenSet | Error): void {
    const waiter = this.waiters.get(state);
    this.waiters.delete(state);
    if (outcome instanceof Error) waiter?.reject(outcome);
    else waiter?.resolve(outcome);
  }

  /** An anonymous caller's tokens live only as long as its execution. */
  forgetExecution(executionId: string): void {
    this.executionTokens.delete(executionId);
  }

  private tokenStore(execution: AuthorizingExecution): Map<string, TokenSet> {
    if (execution.identity.userId !== null) return this.tokens;
    let store = this.executionTokens.get(execution.id);
    if (!store) this.executionTokens.set(execution.id, (store = new Map()));
    return store;
  }
}

function ownerKey(execution: AuthorizingExecution, provider: string): string {
  const { userId } = execution.identity;
  return userId === null ? `execution:${execution.id}:${provider}` : `user:${userId}:${provider}`;
}

function bearer(tokens: TokenSet): AuthResult {
  return { headers: { Authorization: `Bearer ${tokens.accessToken}` } };
}
