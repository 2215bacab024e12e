import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';
import { ask, launchChromium, openPage, openPrompt, seriousA11yViolations } from '../utils/ui-page';

const SCRIPTED_HITL = readFileSync(join(__dirname, '..', '..', 'config', 'scripted-hitl.yml'), 'utf8');

requires('chromium')('the page: accessibility (axe-core)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await startApp(SCRIPTED_HITL);
    browser = await launchChromium();
    ({ page } = await openPage(browser, `${t.url}/`, { bypassCSP: true }));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('has no serious or critical violations: chat with prompts, in light and dark themes', async () => {
    expect(await seriousA11yViolations(page)).toEqual([]);
    await ask(page, 'the audit');
    await openPrompt(page, 'text').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.type('Audit team');
    await page.keyboard.press('Enter');
    await openPrompt(page, 'binary_choice').getByRole('button', { name: 'Yes' }).click();
    await openPrompt(page, 'radio').waitFor();
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 60_000);

  it("has none in the inbox (this chat's waiting prompt listed there) and the settings", async () => {
    await page.getByRole('button', { name: 'Inbox' }).click();
    await page.locator('li.inbox-item form.prompt[data-input-type="radio"]').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('table').waitFor();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    expect(await seriousA11yViolations(page)).toEqual([]);
  }, 60_000);
});
