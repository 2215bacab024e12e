import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';
import {
  ask,
  lastAnswer,
  launchChromium,
  openPage,
  openPrompt,
  screenshot,
  type PageWatch,
} from '../utils/ui-page';

// The shipped example: every prompt type, one after the other (notification, text, yes/no, radio,
// checkbox, dropdown with a countdown and cancel).
const SCRIPTED_HITL = readFileSync(join(__dirname, '..', '..', 'config', 'scripted-hitl.yml'), 'utf8');

/** Presses Tab until the focused element is the control named `name` (keyboard only, as a person would). */
async function tabTo(page: Page, name: string, within = 'form.prompt:not(.prompt-answered)'): Promise<void> {
  for (let i = 0; i < 12; i++) {
    const focused = (await page.evaluate(
      `(() => { const el = document.activeElement; return el && el.closest(${JSON.stringify(within)}) ? (el.getAttribute('aria-label') || el.textContent || el.labels?.[0]?.textContent || '').trim() : ''; })()`,
    )) as string;
    if (focused === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached "${name}"`);
}

requires('chromium')('the page: every prompt type as a form', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(SCRIPTED_HITL);
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a person finishes every prompt type with the mouse', async () => {
    await ask(page, 'Q3 sales');
    await openPrompt(page, 'notification').waitFor();
    expect(await openPrompt(page, 'notification').locator('.prompt-text').textContent()).toBe(
      'Starting the report on "Q3 sales".',
    );
    await screenshot(page, 'prompt-notification');
    await openPrompt(page, 'notification').getByRole('button', { name: 'OK' }).click();

    const text = openPrompt(page, 'text');
    await text.waitFor();
    expect(await text.getByRole('textbox', { name: 'Your answer' }).getAttribute('placeholder')).toBe(
      'A name or a team',
    );
    await screenshot(page, 'prompt-text');
    await text.getByRole('textbox', { name: 'Your answer' }).fill('the board\nand the auditors');
    await text.getByRole('button', { name: 'Send' }).click();

    const yesNo = openPrompt(page, 'binary_choice');
    await yesNo.waitFor();
    await screenshot(page, 'prompt-binary-choice');
    await yesNo.getByRole('button', { name: 'No' }).click();

    const radio = openPrompt(page, 'radio');
    await radio.waitFor();
    await screenshot(page, 'prompt-radio');
    await radio.getByText('SMS', { exact: true }).click();
    await radio.getByRole('button', { name: 'Send' }).click();

    const checkbox = openPrompt(page, 'checkbox');
    await checkbox.waitFor();
    await checkbox.getByRole('checkbox', { name: 'Sales' }).check();
    await checkbox.getByRole('checkbox', { name: 'Hiring' }).check();
    await screenshot(page, 'prompt-checkbox');
    await checkbox.getByRole('button', { name: 'Send selection' }).click();

    const dropdown = openPrompt(page, 'dropdown');
    await dropdown.waitFor();
    // The countdown from the prompt's 300 s timeout.
    expect(await dropdown.getByRole('timer').textContent()).toMatch(/^(5:00|4:5\d) left$/);
    await screenshot(page, 'prompt-dropdown');
    await dropdown.getByRole('combobox').selectOption({ label: 'Excel' });
    await dropdown.getByRole('button', { name: 'Send' }).click();

    await lastAnswer(page)
      .filter({
        hasText: 'for the board\nand the auditors: sections Sales, Hiring, Q4 no, sent by SMS as Excel.',
      })
      .waitFor({ timeout: 10_000 });
    const answered = await page.locator('article.turn').last().locator('.prompt-outcome').allTextContents();
    expect(answered).toEqual([
      'Answered: Acknowledged',
      'Answered: the board\nand the auditors',
      'Answered: No',
      'Answered: SMS',
      'Answered: Sales, Hiring',
      'Answered: Excel',
    ]);
  }, 60_000);

  it('a person finishes every prompt type with the keyboard alone', async () => {
    await ask(page, 'hiring plan');
    // Each question takes the focus when it arrives; the person only types, tabs and presses keys.
    const text = openPrompt(page, 'text');
    await text.waitFor();
    await page.keyboard.type('Finance');
    await page.keyboard.press('Enter');

    await openPrompt(page, 'binary_choice').waitFor();
    await tabTo(page, 'Yes');
    await page.keyboard.press('Enter');

    await openPrompt(page, 'radio').waitFor();
    await page.keyboard.press('ArrowDown'); // Email -> SMS
    await page.keyboard.press('ArrowUp'); // SMS -> Email
    await tabTo(page, 'Send');
    await page.keyboard.press('Enter');

    await openPrompt(page, 'checkbox').waitFor();
    await page.keyboard.press('Space'); // Sales
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // Costs
    await tabTo(page, 'Send selection');
    await page.keyboard.press('Enter');

    await openPrompt(page, 'dropdown').waitFor();
    await page.keyboard.press('ArrowDown'); // Choose… -> PDF
    await tabTo(page, 'Send');
    await page.keyboard.press('Enter');

    await lastAnswer(page)
      .filter({ hasText: 'for Finance: sections Sales, Costs, Q4 yes, sent by Email as PDF.' })
      .waitFor({ timeout: 10_000 });
  }, 60_000);

  it('a prompt that allows it can be cancelled (the workflow takes its cancel path)', async () => {
    await ask(page, 'budget');
    await openPrompt(page, 'text').waitFor();
    await page.keyboard.type('Ops');
    await page.keyboard.press('Enter');
    await openPrompt(page, 'binary_choice').getByRole('button', { name: 'Yes' }).click();
    await openPrompt(page, 'radio').getByText('Email', { exact: true }).click();
    await openPrompt(page, 'radio').getByRole('button', { name: 'Send' }).click();
    await openPrompt(page, 'checkbox').getByRole('checkbox', { name: 'Costs' }).check();
    await openPrompt(page, 'checkbox').getByRole('button', { name: 'Send selection' }).click();
    const dropdown = openPrompt(page, 'dropdown');
    await dropdown.waitFor();
    await tabTo(page, 'Cancel');
    await page.keyboard.press('Enter');
    await lastAnswer(page).filter({ hasText: 'Report on "budget" cancelled.' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('article.turn').last().locator('.prompt-outcome').last().textContent()).toBe(
      'Cancelled',
    );
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  }, 60_000);
});
