import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Ties an OAuth flow to the browser that opened its link, so that a code another browser brings back
 * (a victim handed the link) never reaches the flow. Opening the link sets a short-lived HttpOnly
 * cookie; the callback only completes a flow whose cookie it carries (or whose identified owner calls).
 * SameSite=Lax: the provider's redirect back is a top-level GET navigation, which carries Lax cookies.
 */
export interface FlowBinding {
  cookieName: string;
  value: string;
}

/** One cookie per flow, so flows started side by side in one browser do not overwrite each other. */
export function bindingCookieName(state: string): string {
  return `interlude_oauth_${createHash('sha256').update(state).digest('base64url').slice(0, 16)}`;
}

/**
 * The cookie of an anonymous flow's confirmation page: SameSite=Strict, so a form another site makes
 * the browser post never carries it, whatever that site learnt of the page.
 */
export function confirmCookieName(state: string): string {
  return `interlude_oauth_confirm_${createHash('sha256').update(state).digest('base64url').slice(0, 16)}`;
}

/** A single-use confirmation token; the flow keeps only its hash. */
export function newConfirmToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: tokenHash(token) };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function newBinding(state: string): FlowBinding {
  return { cookieName: bindingCookieName(state), value: randomBytes(32).toString('base64url') };
}

/** Whether a flow's binding (the hash of its cookie's value: a stored flow never holds the cookie) is this one. */
export function bindingMatches(expected: string | undefined, presented: string | undefined): boolean {
  if (!expected || !presented) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The link handed to clients as `auth_url`: this server's start page for the flow, beside the callback. */
export function startUrl(redirectUri: string, state: string): string {
  const url = new URL(redirectUri);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/start`;
  url.search = '';
  url.searchParams.set('state', state);
  return url.href;
}
