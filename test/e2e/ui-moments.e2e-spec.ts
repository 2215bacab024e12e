import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';
import { launchChromium, openPage, openPrompt, screenshot, type PageWatch } from '../utils/ui-page';

// The shipped example with every prompt type, given the page settings a team would set.
const SCRIPTED_HITL = readFileSync(join(__dirname, '..', '..', 'config', 'scripted-hitl.yml'), 'utf8');
const PAGE = {
  title: 'Report desk',
  description: 'Drafts a report and asks you what it cannot decide <b>alone</b>.',
  example_prompts: ['Q3 sales', 'Hiring plan for <script>alert(1)</script>'],
};

/** The example config with `general.front_end.ui` set. */
function withPage(yaml: string): string {
  const config = parse(yaml) as { general: { front_end: Record<string, unknown> } };
  config.general.front_end.ui = PAGE;
  return stringify(config);
}

/** The person's view of the moments of a run: before it, while it waits for them, after it. */
requires('chromium')('the page: empty state, waiting for you, answered prompts, phone', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(withPage(SCRIPTED_HITL));
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an empty conversation shows the workflow, what it does and example questions, as text', async () => {
    const empty = page.getByRole('region', { name: 'Report desk' });
    await empty.waitFor();
    expect(await empty.locator('p').textContent()).toBe(
      'Drafts a report and asks you what it cannot decide <b>alone</b>.',
    );
    const examples = empty.getByRole('list', { name: 'Example questions' }).getByRole('button');
    expect(await examples.allTextContents()).toEqual([
      'Q3 sales',
      'Hiring plan for <script>alert(1)</script>',
    ]);
    expect(await page.title()).toBe('Report desk · Interlude');
    // The message box is at the bottom of the window, not under the header.
    const box = await page.getByRole('textbox', { name: 'Message' }).boundingBox();
    const viewport = page.viewportSize()!;
    expect(box!.y + box!.height).toBeGreaterThan(viewport.height * 0.75);
    await screenshot(page, 'empty-state');
    expect(watch.dialogs).toEqual([]);
  });

  it('an example starts the conversation; a prompt says "Waiting for you" on the turn and in the tab title', async () => {
    await page.getByRole('button', { name: 'Q3 sales' }).click();
    await expect(page.getByRole('region', { name: 'Report desk' }).count()).resolves.toBe(0);
    const turn = page.locator('article.turn').last();
    expect(await turn.locator('.message.user').textContent()).toContain('Q3 sales');

    await openPrompt(page, 'notification').getByRole('button', { name: 'OK' }).click();
    const text = openPrompt(page, 'text');
    await text.waitFor();
    await turn.locator('.turn-state', { hasText: 'Waiting for you' }).waitFor();
    expect(await page.title()).toBe('Waiting for you · Report desk · Interlude');
    await screenshot(page, 'waiting-for-you');

    await text.getByRole('textbox', { name: 'Your answer' }).fill('the board');
    await text.getByRole('button', { name: 'Send' }).click();
    await openPrompt(page, 'binary_choice').waitFor();
    // Answered, the text prompt is one line: its question → the answer, with Details to open it.
    const answered = turn.locator('form.prompt-answered[data-input-type="text"]');
    const line = await answered.boundingBox();
    expect(line!.height).toBeLessThan(40);
    expect(await answered.locator('.prompt-outcome').textContent()).toBe('Answered: the board');
    expect(await answered.getByRole('textbox').isVisible()).toBe(false);
    await answered.getByRole('button', { name: 'Details' }).click();
    expect(await answered.getByRole('textbox').isVisible()).toBe(true);
    expect(await answered.getByRole('button', { name: 'Details' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
    await answered.getByRole('button', { name: 'Details' }).click();
    expect(await answered.getByRole('textbox').isVisible()).toBe(false);
  });

  it('the focus ring is not the error colour', async () => {
    const focus = await page.evaluate(
      `getComputedStyle(document.documentElement).getPropertyValue('--focus').trim()`,
    );
    const error = await page.evaluate(
      `getComputedStyle(document.documentElement).getPropertyValue('--error').trim()`,
    );
    expect(focus).not.toBe(error);
    expect(focus).not.toBe('#b3261e');
  });

  it('stopped while waiting: a neutral line, no error, and the tab title no longer says it waits', async () => {
    const turn = page.locator('article.turn').last();
    await page.getByRole('button', { name: 'Stop' }).click();
    await turn.locator('.turn-state', { hasText: 'Stopped' }).waitFor();
    expect(await turn.locator('.turn-error').isVisible()).toBe(false);
    expect(await page.title()).toBe('Report desk · Interlude');
  });

  it('on a 360 px phone: no horizontal scroll, the conversations open from a menu', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.getByRole('complementary').isVisible()).toBe(false);
    const theme = await page.getByRole('button', { name: /Switch to/ }).boundingBox();
    expect(theme!.x + theme!.width).toBeLessThanOrEqual(360);
    const menu = page.getByRole('button', { name: 'Conversations' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    const sidebar = page.getByRole('complementary');
    expect(await sidebar.isVisible()).toBe(true);
    await screenshot(page, 'phone-menu');
    await sidebar.getByRole('button', { name: 'Q3 sales', exact: true }).click();
    expect(await sidebar.isVisible()).toBe(false);
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });
});
