import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { ask, lastAnswer, launchChromium, openPage } from '../utils/ui-page';
import { startCalendarApp, type CalendarApp } from '../utils/calendar-app';

requires('chromium')('the page: OAuth consent in a popup (real authorization server)', () => {
  let calendar: CalendarApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    calendar = await startCalendarApp();
    browser = await launchChromium();
    ({ page } = await openPage(browser, `${calendar.url}/`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await calendar?.close();
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
    expect(calendar.auth.log.resourceCalls.length).toBeGreaterThan(0);
  }, 60_000);
});
