import { Logger } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import { bindingCookieName, bindingMatches, newBinding, type FlowBinding } from './flow-binding';
import { TokenEndpointError, type OAuthClient } from './oauth-client';
import type { OAuthTokens } from './oauth-tokens';
import type { OAuthWakeups } from './oauth-wakeups';
import type { FlowOutcome, PendingOAuthFlows } from './pending-oauth-flows';

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
 * The browser's side of a flow, on whichever replica it lands: the start link and the callback, which
 * takes the flow (once), exchanges the code, stores the tokens, settles the flow and wakes its workflow.
 */
export class OAuthCallbacks {
  private readonly logger = new Logger('OAuth');

  constructor(
    private readonly providers: ReadonlyMap<string, OAuthClient>,
    private readonly flows: PendingOAuthFlows,
    private readonly tokens: OAuthTokens,
    private readonly wakeups: OAuthWakeups,
  ) {}

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
}
