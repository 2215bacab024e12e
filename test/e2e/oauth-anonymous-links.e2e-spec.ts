import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';
import { launchChromium } from '../utils/ui-page';
import { startCalendarApp, type CalendarApp } from '../utils/calendar-app';

const CLIENT_SECRET = 'anonymous-links-secret';
const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE = { cookie: 'nat-session=alice' };

interface OAuthPause {
  execution_id: string;
  status_url: string;
  auth_url: string;
  oauth_state: string;
}

/**
 * An anonymous caller's consent link is what an attacker hands a victim: whoever consents gives the
 * asker their token. So the link never opens in a browser that carries an identity, and shows a
 * confirmation page (naming the workflow and the provider) before anything goes to the provider.
 */
describe("an anonymous caller's OAuth link handed to someone else", () => {
  let auth: AuthServer;
  let t: TestApp;

  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
    });
    const provider = oauthProvider(auth, {
      client_id: 'interlude',
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT,
    });
    t = await startApp(`
general:
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}`);
  });
  afterAll(async () => {
    await t.close();
    await auth.close();
  });

  const pause = async (headers: Record<string, string> = {}) => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers);
    expect(res.status).toBe(202);
    return res.json as unknown as OAuthPause;
  };
  const statusOf = async (p: OAuthPause) =>
    (await (await fetch(`${t.url}${p.status_url}`)).json()) as Record<string, unknown>;
  const aliceTokenUsed = () => auth.log.resourceCalls.some((c) => c.sub === 'alice');

  it('a browser carrying its own identity (Cookie: nat-session=alice) is refused the link; the asker never gets her token', async () => {
    const attack = await pause();
    const victim = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    const opened = await victim.get(attack.auth_url);
    const page = await opened.text();
    if (opened.status === 302) {
      // What the link did before: the victim consents, and the asker's run calls the API as her.
      await victim.callback(await auth.authorize(opened.headers.get('location')!, 'alice'));
    }
    expect(opened.status).toBe(403);
    expect(page).toContain('this browser is signed in');
    expect(opened.headers.getSetCookie()).toEqual([]);
    expect(await statusOf(attack)).toMatchObject({ status: 'oauth_required' });
    expect(aliceTokenUsed()).toBe(false);
  });

  it('shows a confirmation page naming the workflow and the provider, safe to render, and redirects only once confirmed', async () => {
    const paused = await pause();
    const person = OAuthBrowser.of(t.url, auth, 'anon-person');
    const opened = await person.get(paused.auth_url);
    const html = await opened.text();
    expect(opened.status).toBe(200);
    expect(opened.headers.get('location')).toBeNull();
    expect(opened.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain(
      'The workflow <strong>scripted</strong> asks to act with your <strong>calendar</strong>',
    );
    expect(html).toMatch(/<form method="post">/);
    expect(html).not.toMatch(/<script|\son\w+=/i);
    const csp = opened.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "frame-ancestors 'none'",
        `form-action 'self' ${new URL(auth.issuer).origin}`,
      ]),
    );
    const [cookie] = opened.headers.getSetCookie();
    expect(cookie).toMatch(/^interlude_oauth_confirm_[\w-]+=[\w-]{40,};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Strict/i);
    expect(cookie).toMatch(/; Path=\/auth\/redirect(;|$)/);
    // The person who started it confirms, and goes on to the provider.
    const confirmed = await person.confirm(paused.auth_url, html);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')!.startsWith(auth.authorizationUrl)).toBe(true);
    expect(confirmed.headers.getSetCookie().join()).toMatch(/interlude_oauth_confirm_[\w-]+=;/);
    const back = await person.callback(
      await auth.authorize(confirmed.headers.get('location')!, 'anon-person'),
    );
    expect(back.status).toBe(200);
    await eventually(async () =>
      expect(await statusOf(paused)).toMatchObject({
        status: 'completed',
        result: { value: 'Hello anon-person' },
      }),
    );
  });

  it('the confirmation cannot be forged: another site, another browser, a replaced or a used token are refused', async () => {
    const paused = await pause();
    const first = OAuthBrowser.of(t.url, auth, 'anon-1');
    const firstPage = await (await first.get(paused.auth_url)).text();
    // Posted from another site's page: the browser says so.
    const crossSite = await first.confirm(paused.auth_url, firstPage, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    // The token copied into another browser, which never got the page's cookie.
    const stranger = OAuthBrowser.of(t.url, auth, 'anon-stranger');
    expect((await stranger.confirm(paused.auth_url, firstPage)).status).toBe(403);
    // A signed-in browser, even with the page's token and cookie.
    const signedIn = await first.confirm(paused.auth_url, firstPage, {
      cookie: `${first.cookieHeader()}; ${ALICE.cookie}`,
    });
    expect(signedIn.status).toBe(403);
    // Another browser opens the link later: the first page's token no longer confirms.
    const second = OAuthBrowser.of(t.url, auth, 'anon-2');
    const secondPage = await (await second.get(paused.auth_url)).text();
    expect((await first.confirm(paused.auth_url, firstPage)).status).toBe(403);
    expect((await second.confirm(paused.auth_url, secondPage)).status).toBe(303);
    // Used once: the link is now bound to the second browser.
    expect((await second.confirm(paused.auth_url, secondPage)).status).toBe(403);
    expect((await first.get(paused.auth_url)).status).toBe(403);
    expect(await statusOf(paused)).toMatchObject({ status: 'oauth_required' });
  });

  it('an identified flow still opens straight to the provider for its owner', async () => {
    const paused = await pause(ALICE);
    const opened = await OAuthBrowser.of(t.url, auth, 'alice', ALICE).get(paused.auth_url);
    expect(opened.status).toBe(302);
  });

  it('a start link with markup in its state reflects none of it', async () => {
    const res = await fetch(`${t.url}/auth/redirect/start?state=%3Cscript%3Ealert(1)%3C/script%3E`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('<script>alert');
  });
});

requires('chromium')('an anonymous flow in a real browser: confirm, consent, done', () => {
  let calendar: CalendarApp;

  beforeAll(async () => {
    calendar = await startCalendarApp();
  }, 30_000);
  afterAll(async () => {
    await calendar?.close();
  });

  it('the confirmation page (its CSP allowing the redirect) leads to the provider and back', async () => {
    const res = await postJson(`${calendar.url}/v1/workflow`, { input_message: 'x' });
    const paused = res.json as unknown as OAuthPause;
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext()).newPage();
      const blocked: string[] = [];
      page.on('console', (m) => m.text().includes('Content Security Policy') && blocked.push(m.text()));
      await page.goto(paused.auth_url);
      await page.getByRole('heading', { name: 'Authorize calendar?' }).waitFor();
      await page.getByRole('button', { name: 'Continue to calendar' }).click();
      await page.locator('input[name="login"]').fill('anon-browser');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Authentication complete' }).waitFor();
      expect(blocked).toEqual([]);
      await eventually(async () => {
        const status = (await (await fetch(`${calendar.url}${paused.status_url}`)).json()) as Record<
          string,
          unknown
        >;
        expect(status).toMatchObject({ status: 'completed', result: { value: 'Hello anon-browser' } });
      });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
