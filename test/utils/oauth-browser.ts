import type { AuthServer } from './oidc-server';

/** This server's address for a URL it handed out under its configured host (e.g. http://interlude.test). */
function onApp(appUrl: string, href: string): string {
  const url = new URL(href);
  return `${appUrl}${url.pathname}${url.search}`;
}

/**
 * A person's browser in an OAuth flow: it keeps this server's cookies (starting with the person's own,
 * e.g. their session cookie), opens the `auth_url` the server handed out (its start link sets the
 * flow's binding cookie and redirects to the provider), consents at the provider, and follows the
 * provider's redirect back to the callback with its cookies.
 */
export class OAuthBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly appUrl: string,
    private readonly auth: AuthServer,
    /** The provider account the person logs in with. */
    private readonly user: string,
    cookies: Record<string, string> = {},
    /** A gateway in front of this server that adds the person's bearer token to every request. */
    private readonly authorization?: string,
  ) {
    for (const [k, v] of Object.entries(cookies)) this.cookies.set(k, v);
  }

  /**
   * A browser holding the session cookie of a `{cookie: 'nat-session=…'}` header set, if any; an
   * `authorization` header stands for a gateway that adds the person's token to their navigations.
   */
  static of(appUrl: string, auth: AuthServer, user: string, headers: Record<string, string> = {}) {
    const cookies: Record<string, string> = {};
    for (const pair of (headers.cookie ?? '').split(';')) {
      const [k, ...v] = pair.trim().split('=');
      if (k) cookies[k] = v.join('=');
    }
    return new OAuthBrowser(appUrl, auth, user, cookies, headers.authorization);
  }

  /** The Cookie header this browser sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.trim().split('=');
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a),
      );
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
  }

  /** GET on this server, redirects not followed. */
  async get(href: string): Promise<Response> {
    const res = await fetch(onApp(this.appUrl, href), {
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        cookie: this.cookieHeader(),
        ...(this.authorization ? { authorization: this.authorization } : {}),
      },
    });
    this.keep(res);
    return res;
  }

  /**
   * Opens the auth_url: this server's start link, which must redirect to the provider (an anonymous
   * flow's after its confirmation page, confirmed as the person who started it would). Returns that URL.
   */
  async open(authUrl: string): Promise<string> {
    let res = await this.get(authUrl);
    if (res.status === 200) res = await this.confirm(authUrl, await res.text());
    await res.arrayBuffer();
    const location = res.headers.get('location');
    if ((res.status !== 302 && res.status !== 303) || !location) {
      throw new Error(`open ${authUrl}: ${res.status}, no redirect`);
    }
    return location;
  }

  /** Submits the confirmation page's form (its button), from that page: same origin, with its cookie. */
  async confirm(pageUrl: string, html: string, headers: Record<string, string> = {}): Promise<Response> {
    const token = /name="confirm" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error(`no confirmation form at ${pageUrl}: ${html.slice(0, 200)}`);
    return this.post(pageUrl, new URLSearchParams({ confirm: token }).toString(), headers);
  }

  /** A form POST on this server from one of its pages, redirects not followed. */
  async post(href: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(onApp(this.appUrl, href), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
        cookie: this.cookieHeader(),
        ...(this.authorization ? { authorization: this.authorization } : {}),
        ...headers,
      },
      body,
    });
    this.keep(res);
    return res;
  }

  /** Opens the auth_url and consents (or denies) at the provider; returns the redirect back (not followed). */
  async consent(authUrl: string, options?: { deny?: boolean }): Promise<string> {
    return this.auth.authorize(await this.open(authUrl), this.user, options);
  }

  /** Follows the provider's redirect back to this server's callback. */
  async callback(redirect: string) {
    const res = await this.get(redirect);
    return { status: res.status, headers: res.headers, html: await res.text() };
  }

  /** The whole flow, as the person would go through it. */
  async complete(authUrl: string, options?: { deny?: boolean }) {
    return this.callback(await this.consent(authUrl, options));
  }
}
