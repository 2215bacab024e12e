import { PendingOAuthFlows } from '../../src/oauth/pending-oauth-flows';
import { OAuthBrowser } from '../utils/oauth-browser';
import { oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';

const CLIENT_SECRET = 'binding-client-secret';
const REDIRECT = 'http://interlude.test/auth/redirect';
const MALLORY = { cookie: 'nat-session=mallory' };
const ALICE = { cookie: 'nat-session=alice' };
const UI_ORIGIN = 'http://ui.example.test:3000';

interface OAuthPause {
  execution_id: string;
  status_url: string;
  auth_url: string;
  oauth_state: string;
}

function yaml(auth: AuthServer): string {
  const settings = oauthProvider(
    auth,
    { client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uri: REDIRECT },
    { auth_timeout_seconds: 30 },
  );
  return `
general:
  front_end:
    cors: { allow_origins: ['${UI_ORIGIN}'] }
  outbound: { allow_hosts: [127.0.0.1] }
authentication:
  calendar: ${JSON.stringify(settings)}
workflow:
  _type: scripted
  steps:
    - fetch: { url: '${auth.resourceUrl}', provider: calendar, save_as: me }
  output: 'Hello {{me.sub}}'
`;
}

describe('an OAuth flow is completed only by the browser or user that started it', () => {
  let auth: AuthServer;
  let t: TestApp;

  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
      accessTokenTtlSeconds: 3600,
    });
    t = await startApp(yaml(auth));
  });
  afterAll(async () => {
    await t.close();
    await auth.close();
  });

  const pause = async (headers: Record<string, string>) => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers);
    expect(res.status).toBe(202);
    return res.json as unknown as OAuthPause;
  };
  const statusOf = async (p: OAuthPause, headers: Record<string, string>) =>
    (await (await fetch(`${t.url}${p.status_url}`, { headers })).json()) as Record<string, unknown>;
  const aliceTokenUsed = () => auth.log.resourceCalls.some((c) => c.sub === 'alice');

  /**
   * The victim's browser follows a link it was sent, as a browser does: through this server when the
   * link is this server's, then the provider (logged in as alice), then back to the callback.
   */
  async function victimFollows(link: string): Promise<number> {
    return (await victimLands(link)).status;
  }

  /** What `victimFollows` ends on, with the callback URL the victim landed on (none: stopped before). */
  async function victimLands(link: string): Promise<{ status: number; landed?: string; html?: string }> {
    const victim = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    let providerUrl = link;
    if (new URL(link).origin !== new URL(auth.issuer).origin) {
      const opened = await victim.get(link);
      await opened.arrayBuffer();
      if (opened.status !== 302) return { status: opened.status };
      providerUrl = opened.headers.get('location')!;
    }
    const landed = await auth.authorize(providerUrl, 'alice');
    const { status, html } = await victim.callback(landed);
    return { status, landed, html };
  }

  /** The run's end once a code came back to a browser that did not start the flow. */
  const NOT_USED = {
    status: 'failed',
    error: expect.stringContaining('came back to a browser that did not start it: it was not used'),
  };

  it("an attacker's auth_url opened by a victim never gives the attacker the victim's token", async () => {
    const attack = await pause(MALLORY);
    expect(await victimFollows(attack.auth_url)).toBe(403);
    expect(await statusOf(attack, MALLORY)).toMatchObject({ status: 'oauth_required' });
    expect(aliceTokenUsed()).toBe(false);
    // The flow stays open for its owner, who completes it in their own browser.
    expect((await OAuthBrowser.of(t.url, auth, 'mallory', MALLORY).complete(attack.auth_url)).status).toBe(
      200,
    );
    await eventually(async () =>
      expect(await statusOf(attack, MALLORY)).toMatchObject({
        status: 'completed',
        result: { value: 'Hello mallory' },
      }),
    );
    expect(aliceTokenUsed()).toBe(false);
  });

  it("the provider's own URL, taken from the attacker's browser and sent to a victim, is refused at the callback", async () => {
    const trudy = { cookie: 'nat-session=trudy' };
    const attack = await pause(trudy);
    const providerUrl = await OAuthBrowser.of(t.url, auth, 'trudy', trudy).open(attack.auth_url);
    expect(await victimFollows(providerUrl)).toBe(403);
    expect(aliceTokenUsed()).toBe(false);
  });

  it("the victim's code is never used: the run that asked fails, and the URL the victim landed on, replayed by the attacker, is refused", async () => {
    const trudy = { cookie: 'nat-session=trudy' };
    const attack = await pause(trudy);
    const attacker = OAuthBrowser.of(t.url, auth, 'trudy', trudy);
    const providerUrl = await attacker.open(attack.auth_url);
    const { status, landed, html } = await victimLands(providerUrl);
    expect(status).toBe(403);
    expect(html).toContain('so it was not used');
    await eventually(async () => expect(await statusOf(attack, trudy)).toMatchObject(NOT_USED));
    // The attacker's browser carries the flow's binding cookie: before, this redeemed alice's code.
    expect((await attacker.callback(landed!)).status).toBe(400);
    expect(aliceTokenUsed()).toBe(false);
  });

  it('a callback without a code or an error in a browser that did not start the flow leaves it open', async () => {
    const owner = { cookie: 'nat-session=oscar' };
    const paused = await pause(owner);
    const stranger = OAuthBrowser.of(t.url, auth, 'stranger');
    const bare = await stranger.callback(`${t.url}/auth/redirect?state=${paused.oauth_state}`);
    expect(bare.status).toBe(403);
    expect(await statusOf(paused, owner)).toMatchObject({ status: 'oauth_required' });
    expect((await OAuthBrowser.of(t.url, auth, 'oscar', owner).complete(paused.auth_url)).status).toBe(200);
    await eventually(async () =>
      expect(await statusOf(paused, owner)).toMatchObject({
        status: 'completed',
        result: { value: 'Hello oscar' },
      }),
    );
  });

  it("an anonymous flow is tied to the first browser that opens it: another browser's code is refused", async () => {
    const attack = await pause({});
    const attacker = OAuthBrowser.of(t.url, auth, 'anon-attacker');
    expect(await victimFollows(attack.auth_url)).toBe(403);
    const providerUrl = await attacker.open(attack.auth_url);
    const { status, landed } = await victimLands(providerUrl);
    expect(status).toBe(403);
    await eventually(async () => expect(await statusOf(attack, {})).toMatchObject(NOT_USED));
    expect((await attacker.callback(landed!)).status).toBe(400);
    expect(aliceTokenUsed()).toBe(false);
  });

  it('the binding cookie is HttpOnly, SameSite=Lax, scoped to the callback, and cleared once used', async () => {
    const paused = await pause({ cookie: 'nat-session=carol' });
    const carol = OAuthBrowser.of(t.url, auth, 'carol', { cookie: 'nat-session=carol' });
    const opened = await carol.get(paused.auth_url);
    expect(opened.status).toBe(302);
    const [cookie] = opened.headers.getSetCookie();
    expect(cookie).toMatch(/^interlude_oauth_[\w-]+=[\w-]{40,};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\/auth\/redirect(;|$)/);
    expect(cookie).toMatch(/; Max-Age=\d+/);
    // The store keeps a hash of the cookie's value, so a read of it (a backup, a replica's table) cannot
    // be turned into the cookie that completes the flow.
    const value = /^[^=]+=([^;]+)/.exec(cookie)![1];
    const stored = await t.app.get(PendingOAuthFlows).get(paused.oauth_state);
    expect(stored?.binding).toMatch(/^[\w-]{43}$/);
    expect(JSON.stringify(stored)).not.toContain(value);
    const back = await carol.get(await auth.authorize(opened.headers.get('location')!, 'carol'));
    expect(back.status).toBe(200);
    expect(back.headers.getSetCookie().join()).toMatch(/interlude_oauth_[\w-]+=;.*Expires=Thu, 01 Jan 1970/);
  });

  it("the callback page tells only the configured origins, never '*'", async () => {
    const paused = await pause({ cookie: 'nat-session=dave' });
    const back = await OAuthBrowser.of(t.url, auth, 'dave', { cookie: 'nat-session=dave' }).complete(
      paused.auth_url,
    );
    expect(back.status).toBe(200);
    expect(back.html).toContain(JSON.stringify([UI_ORIGIN]));
    expect(back.html).toContain('window.location.origin');
    expect(back.html).not.toMatch(/postMessage\([^)]*'\*'/);
  });
});
