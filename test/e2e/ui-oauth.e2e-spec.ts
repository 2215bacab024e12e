import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Browser, Page } from 'playwright-core';
import { createApp } from '../../src/main';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { freePort } from '../utils/cli';
import { requires } from '../utils/requires';
import { configFrom } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage } from '../utils/ui-page';

requires('chromium')('the page: OAuth consent in a popup (real authorization server)', () => {
  let auth: AuthServer;
  let app: NestExpressApplication;
  let url: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [`${url}/auth/redirect`] }],
    });
    const provider = oauthProvider(auth, {
      client_id: 'interlude',
      client_secret: 'secret',
      redirect_uri: `${url}/auth/redirect`,
    });
    const config = configFrom(`
general:
  front_end: { public_base_url: '${url}' }
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}
`);
    app = await createApp(config, { logger: false });
    await app.listen(port, '127.0.0.1');
    browser = await launchChromium();
    ({ page } = await openPage(browser, `${url}/`));
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await auth?.close();
  });

  it('opens the authorization page in a popup; the run resumes when the person has consented', async () => {
    await ask(page, 'my calendar');
    const consent = page.getByRole('region', { name: 'Authorization needed' });
    await consent.waitFor({ timeout: 10_000 });
    const popupOpened = page.waitForEvent('popup');
    await consent.getByRole('button', { name: 'Sign in' }).click();
    const popup = await popupOpened;
    // The provider's own pages: sign in as alice, then allow.
    await popup.locator('input[name="login"]').fill('alice');
    await popup.getByRole('button', { name: 'Sign in' }).click();
    await popup.getByRole('button', { name: 'Allow' }).click();
    // The callback page tells this window and closes itself.
    await popup.waitForEvent('close', { timeout: 10_000 });
    await lastAnswer(page).filter({ hasText: 'Hello alice' }).waitFor({ timeout: 10_000 });
    expect(await consent.getByRole('status').textContent()).toBe('Authorized; the workflow goes on.');
    expect(auth.log.resourceCalls.length).toBeGreaterThan(0);
  }, 60_000);
});
