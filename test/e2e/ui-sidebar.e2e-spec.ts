import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { launchChromium, openPage, seriousA11yViolations, type PageWatch } from '../utils/ui-page';

const STEPS = `- stream: { text: 'Notes on {{input}}.', delay_seconds: 0.01 }`;

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Conversations' });
const toggle = (page: Page) => page.getByRole('button', { name: 'Conversations' });
const mainWidth = async (page: Page) => (await page.locator('main').boundingBox())!.width;
/** The button's state, once the page has heard of a new window width (a media query's change event). */
const expanded = (page: Page, value: 'true' | 'false') =>
  page.waitForFunction(`document.getElementById('menu').getAttribute('aria-expanded') === '${value}'`);

requires('chromium')('the page: the conversations sidebar collapses on a desktop', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Done.'));
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`, { bypassCSP: true }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is open at first; the keyboard reaches its button and collapses it, and the chat takes the width', async () => {
    expect(await sidebar(page).isVisible()).toBe(true);
    expect(await toggle(page).getAttribute('aria-expanded')).toBe('true');
    const narrow = await mainWidth(page);
    // Tab from the top of the page: the skip link, then the sidebar's button.
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('menu');
    await page.keyboard.press('Enter');
    expect(await sidebar(page).isVisible()).toBe(false);
    expect(await toggle(page).getAttribute('aria-expanded')).toBe('false');
    // The chat takes the sidebar's 260 px.
    expect(await mainWidth(page)).toBeGreaterThanOrEqual(narrow + 250);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('stays collapsed across a reload, and opens again with Space, which a reload keeps too', async () => {
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(await sidebar(page).isVisible()).toBe(false);
    expect(await toggle(page).getAttribute('aria-expanded')).toBe('false');
    await toggle(page).focus();
    await page.keyboard.press('Space');
    expect(await sidebar(page).isVisible()).toBe(true);
    expect(await toggle(page).getAttribute('aria-expanded')).toBe('true');
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(await sidebar(page).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('collapsed on the desktop, a phone still shows it as a menu, closed until asked for', async () => {
    await toggle(page).click();
    expect(await sidebar(page).isVisible()).toBe(false);
    await page.setViewportSize({ width: 360, height: 740 });
    await expanded(page, 'false');
    await toggle(page).click();
    expect(await sidebar(page).isVisible()).toBe(true);
    expect(await toggle(page).getAttribute('aria-expanded')).toBe('true');
    // Back on the wide window: the desktop choice (collapsed) holds.
    await page.setViewportSize({ width: 1100, height: 800 });
    expect(await sidebar(page).isVisible()).toBe(false);
    await expanded(page, 'false');
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });
});
