import { Logger } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import {
  bindingCookieName,
  bindingMatches,
  confirmCookieName,
  newBinding,
  newConfirmToken,
  tokenHash,
  type FlowBinding,
} from './flow-binding';
import { TokenEndpointError, type AuthCodeClient } from './oauth-client';
import type { OAuthTokens } from './oauth-tokens';
import type { OAuthWakeups } from './oauth-wakeups';
import type { FlowOutcome, PendingFlow, PendingOAuthFlows } from './pending-oauth-flows';

/** What `/auth/redirect` answers: a status and a small page for the popup. */
export interface CallbackOutcome {
  status: 200 | 400 | 403 | 500 | 502;
  message: string;
  /** The flow's binding cookie, to clear once the callback has used it. */
  clearCookie?: string;
}

/** The confirmation page of an anonymous flow: what it names, and the token its form and cookie carry. */
export interface ConfirmPage {
  workflow: string;
  provider: string;
  /** Where the confirmed form goes on to (its page's CSP `form-action` must allow the redirect). */
  providerOrigin: string;
  token: string;
  cookieName: string;
  maxAgeSeconds: number;
}

/**
 * What `/auth/redirect/start` answers: a redirect to the provider with the binding cookie (and, after a
 * confirmation, the confirmation cookie to clear), the confirmation page of an anonymous flow, or a page
 * saying why not.
 */
export type StartOutcome =
  | { status: 302; location: string; binding: FlowBinding; maxAgeSeconds: number; clearCookie?: string }
  | { status: 200; confirm: ConfirmPage }
  | { status: 400 | 403; message: string };

/** What a browser brings to confirm an anonymous flow. */
export interface Confirmation {
  /** The token of the page's form. */
  form: string | undefined;
  /** The browser's cookies (the page's own among them). */
  cookies: Record<string, string>;
  /** `Sec-Fetch-Site`, which browsers send: the form must come from this server's own page. */
  fetchSite: string | undefined;
}

const INVALID_STATE = 'Invalid state. Please restart the authentication process.';
const NOT_FOR_SIGNED_IN =
  'This authorization link was made for someone who was not signed in, and this browser is signed in: it was not opened. If you did not start this yourself, someone may be trying to act with your account; close this window.';
const CONFIRMATION_INVALID =
  'This confirmation is no longer valid (it was already used, replaced by a newer page, or sent from another site). Open the authorization link again.';

/**
 * The browser's side of a flow, on whichever replica it lands: the start link and the callback, which
 * takes the flow (once), exchanges the code, stores the tokens, settles the flow and wakes its workflow.
 */
export class OAuthCallbacks {
  private readonly logger = new Logger('OAuth');

  constructor(
    private readonly providers: ReadonlyMap<string, AuthCodeClient>,
    private readonly flows: PendingOAuthFlows,
    private readonly tokens: OAuthTokens,
    private readonly wakeups: OAuthWakeups,
  ) {}

  /**
   * `GET /auth/redirect/start?state=…`, the `auth_url` clients hand to the user's browser. A flow an
   * identified user started opens only for that user (who may open it again, moving the binding) and
   * goes on to the provider. An anonymous one opens only in a browser that carries no identity, and
   * shows a confirmation page first: a link handed to someone else is never one click from their
   * consent. Its first confirmation binds it to that browser.
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
    if (flow.ownerId === null) return this.confirmationPage(flow, caller);
    const binding = newBinding(state);
    if (!(await this.flows.bind(state, tokenHash(binding.value))))
      return { status: 400, message: INVALID_STATE };
    return { status: 302, location: flow.providerUrl, binding, maxAgeSeconds: maxAgeOf(flow) };
  }

  private async confirmationPage(flow: PendingFlow, caller: Identity): Promise<StartOutcome> {
    const refused = this.anonymousRefusal(flow, caller);
    if (refused) return refused;
    const { token, hash } = newConfirmToken();
    if (!(await this.flows.prepare(flow.state, hash))) {
      return { status: 403, message: 'This authorization link was already opened in another browser.' };
    }
    const confirm: ConfirmPage = {
      workflow: flow.workflow ?? 'a workflow',
      provider: flow.provider,
      providerOrigin: new URL(flow.providerUrl).origin,
      token,
      cookieName: confirmCookieName(flow.state),
      maxAgeSeconds: maxAgeOf(flow),
    };
    return { status: 200, confirm };
  }

  /**
   * `POST /auth/redirect/start?state=…`: the confirmation page's form. It binds the anonymous flow to
   * this browser if the form's token is the page's cookie and the one the flow waits for (used once),
   * and goes on to the provider.
   */
  async confirm(state: string, caller: Identity, presented: Confirmation): Promise<StartOutcome> {
    const flow = await this.flows.get(state);
    if (!flow) return { status: 400, message: INVALID_STATE };
    if (flow.ownerId !== null) return { status: 400, message: 'This authorization needs no confirmation.' };
    const refused = this.anonymousRefusal(flow, caller);
    if (refused) return refused;
    const { form, cookies, fetchSite } = presented;
    const clearCookie = confirmCookieName(state);
    const sameSite = fetchSite === undefined || fetchSite === 'same-origin';
    if (!sameSite || !form || form !== cookies[clearCookie])
      return { status: 403, message: CONFIRMATION_INVALID };
    const binding = newBinding(state);
    if (!(await this.flows.confirm(state, tokenHash(form), tokenHash(binding.value)))) {
      return { status: 403, message: CONFIRMATION_INVALID };
    }
    return { status: 302, location: flow.providerUrl, binding, maxAgeSeconds: maxAgeOf(flow), clearCookie };
  }

  /** Why an anonymous flow does not open in this browser: it carries an identity, or the flow is bound. */
  private anonymousRefusal(flow: PendingFlow, caller: Identity): StartOutcome | undefined {
    if (caller.userId !== null) return { status: 403, message: NOT_FOR_SIGNED_IN };
    if (flow.binding) {
      return { status: 403, message: 'This authorization link was already opened in another browser.' };
    }
    return undefined;
  }

  /**
   * `GET /auth/redirect`: the provider sent a browser back with a code (or an error). Only the browser
   * the flow was bound to (its cookie), or the identified owner, may complete it; any other is refused,
   * and a code it brings ends the flow unused (`refuseUnbound`), so a victim handed the link cannot feed
   * the asker a code, now or by handing on the URL they landed on.
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
    const presented = cookies[cookieName];
    const bound =
      bindingMatches(flow.binding, presented === undefined ? undefined : tokenHash(presented)) ||
      (flow.ownerId !== null && caller.userId === flow.ownerId);
    if (!bound) return this.refuseUnbound(state, flow, query);
    // Usable once, whatever happens next: of two replicas the callback reaches, one goes on.
    if (!(await this.flows.take(state))) return { status: 400, message: INVALID_STATE };
    const done = async (outcome: CallbackOutcome, settled: FlowOutcome): Promise<CallbackOutcome> => {
      await this.settle(state, settled);
      return { ...outcome, clearCookie: cookieName };
    };
    const error = query.get('error');
    if (error) {
      const description = query.get('error_description');
      const said = providerText(error, MAX_ERROR_CHARS);
      const why = description ? ` (${providerText(description, MAX_DESCRIPTION_CHARS)})` : '';
      const message = `Authorization was refused by the provider: ${said}${why}`;
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

  /**
   * A callback in a browser the flow is not bound to. Bringing a code (or the provider's error), it ends
   * the flow: that code was granted by whoever is signed in at the provider here, and were the flow left
   * open, its owner could bring the same callback URL, asked of this person, to their own browser and
   * redeem it. So it is never exchanged, and the run that asked fails.
   */
  private async refuseUnbound(
    state: string,
    flow: PendingFlow,
    query: URLSearchParams,
  ): Promise<CallbackOutcome> {
    const returned = query.has('code') || query.has('error');
    if (!returned || !(await this.flows.take(state))) {
      return {
        status: 403,
        message:
          'This authorization was not started in this browser. Open the link the application gave you, in the browser that asked for it.',
      };
    }
    await this.settle(state, {
      ok: false,
      message: `Authorization with ${flow.provider} came back to a browser that did not start it: it was not used`,
    });
    return {
      status: 403,
      message: `This authorization was not started in this browser, so it was not used, and the request that asked for it has been stopped. If you did not start it yourself, someone may have tried to get access to your ${flow.provider} account: you can revoke this application's access there.`,
    };
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

/** The most of a provider's `error` and `error_description` an execution's error repeats. */
const MAX_ERROR_CHARS = 64;
const MAX_DESCRIPTION_CHARS = 300;

/**
 * A provider's `error` or `error_description` as the execution's error repeats it to every face: only the
 * characters RFC 6749 allows there (printable ASCII but `"` and `\`; anything else, a line break among
 * them, becomes `?`), cut to `max`. It comes in the browser's query string, not from the provider itself.
 */
function providerText(value: string, max: number): string {
  const allowed = value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
  return allowed.length > max ? `${allowed.slice(0, max)}…` : allowed;
}

function maxAgeOf(flow: PendingFlow): number {
  return Math.max(1, Math.ceil((flow.expiresAt - Date.now()) / 1000));
}
