import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage, openPrompt, type PageWatch } from '../utils/ui-page';

const STEPS = `- stream: { text: 'Checking the budget. ' }
- prompt: { input_type: text, text: 'Who approves it?', timeout: 30, save_as: who }
- prompt:
    input_type: binary_choice
    text: 'Send it now?'
    options: [{ id: 'y', label: 'Send', value: 'y' }, { id: 'n', label: 'Wait', value: 'n' }]
    timeout: 2
    error: 'The approval window closed.'
    save_as: now`;

/** Seconds the prompt's countdown shows. */
async function secondsLeft(page: Page): Promise<number> {
  const text = (await openPrompt(page, 'text').getByRole('timer').textContent()) ?? '';
  const match = /^(\d+):(\d\d) left$/.exec(text);
  if (!match) throw new Error(`no countdown in "${text}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

requires('chromium')('the page survives a reload', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Approved by {{who}}, send now: {{now}}'));
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a reload mid-prompt shows the same prompt with the time it has left, and the answer finishes the run', async () => {
    await ask(page, 'budget');
    await openPrompt(page, 'text').waitFor();
    const conversationId = new URL(page.url()).searchParams.get('conversation_id');
    // Wait for the countdown to move, so the time left after the reload can be told from the full 30 s.
    await eventually(async () => expect(await secondsLeft(page)).toBeLessThanOrEqual(27), 10_000, 200);

    await page.reload();
    expect(new URL(page.url()).searchParams.get('conversation_id')).toBe(conversationId);
    // What was shown before the reload comes from the browser; the prompt comes from the server again.
    await page.locator('.message.user', { hasText: 'budget' }).waitFor();
    await lastAnswer(page).filter({ hasText: 'Checking the budget.' }).waitFor();
    const prompt = openPrompt(page, 'text');
    await prompt.waitFor({ timeout: 10_000 });
    expect(await prompt.locator('.prompt-text').textContent()).toBe('Who approves it?');
    const left = await secondsLeft(page);
    expect(left).toBeGreaterThan(5);
    expect(left).toBeLessThanOrEqual(27);

    await page.keyboard.type('Dana');
    await page.keyboard.press('Enter');
    await openPrompt(page, 'binary_choice').waitFor();
  }, 60_000);

  it('a countdown that runs out closes the prompt with its error, and the run fails in place', async () => {
    const choice = page.locator('form.prompt[data-input-type="binary_choice"]');
    // The 2 s countdown: the form closes itself with the prompt's own error message.
    await choice
      .locator('.prompt-outcome', { hasText: 'The approval window closed.' })
      .waitFor({ timeout: 10_000 });
    expect(await choice.getByRole('button').count()).toBe(0);
    // The server timed it out too: the run failed, and the page shows why where the answer would be.
    const error = page.locator('article.turn').last().locator('.turn-error');
    await error.waitFor({ timeout: 10_000 });
    expect(await error.textContent()).toMatch(/^Error: .*timed out after 2s/);
    expect(watch.errors).toEqual([]);
  });
});
