import type { Browser, BrowserContext, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage, screenshot, type PageWatch } from '../utils/ui-page';

// A lookup step, then an answer streamed word by word (about 2 s), in Markdown.
const STEPS = `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { rows: 3 }, duration_seconds: 0.2 }
- stream: { text: 'Here is **the summary** of {{input}}: ', delay_seconds: 0.04 }
- stream: { text: 'one two three four five six seven eight nine ten eleven twelve ', delay_seconds: 0.1, repeat: 2 }`;
const OUTPUT = '\n\n- first point\n- second point';

/** Every distinct text the last answer showed while it streamed (a MutationObserver in the page). */
const RECORD_ANSWER_TEXTS = `(() => {
  window.__answerTexts = [];
  new MutationObserver(() => {
    const answers = document.querySelectorAll('article.turn .answer');
    const text = answers.length ? answers[answers.length - 1].textContent : '';
    if (window.__answerTexts[window.__answerTexts.length - 1] !== text) window.__answerTexts.push(text);
  }).observe(document.getElementById('log'), { subtree: true, childList: true, characterData: true });
})()`;

requires('chromium')('the page: chat over the WebSocket face', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, `Done with {{input}}.${OUTPUT}`));
    browser = await launchChromium();
    ({ context, page, watch } = await openPage(browser, `${t.url}/`));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('streams the answer as Markdown and shows the steps with their durations', async () => {
    await page.evaluate(RECORD_ANSWER_TEXTS);
    await ask(page, 'the sales data');
    const turn = page.locator('article.turn').last();
    await turn.getByRole('button', { name: 'Copy answer' }).waitFor({ timeout: 15_000 });
    await expectText(lastAnswer(page), 'Here is the summary of the sales data');
    expect(await lastAnswer(page).locator('strong').textContent()).toBe('the summary');
    expect(await lastAnswer(page).locator('li').allTextContents()).toEqual(['first point', 'second point']);
    // Streamed: the page showed the answer growing, not only once complete.
    const texts = (await page.evaluate('window.__answerTexts')) as string[];
    expect(
      texts.filter((x) => x.startsWith('Here is the summary') && !x.includes('Done with')).length,
    ).toBeGreaterThan(3);

    const timeline = turn.locator('details.timeline');
    await expect(timeline.locator('summary').first().textContent()).resolves.toMatch(
      /^1 intermediate step · \d+\.\d+ s$/,
    );
    await timeline.locator('summary').first().click();
    const step = timeline.locator('li.step summary');
    expect(await step.locator('.step-name').textContent()).toBe('Tool: lookup');
    const duration = Number((await step.locator('.step-duration').textContent())?.replace(' s', ''));
    expect(duration).toBeGreaterThanOrEqual(0.2);
    await step.click();
    await expectText(turn.locator('.step-payload'), '"rows":3');
    await screenshot(page, 'chat');
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });

  it('copies an answer, takes feedback on it (POST /feedback with its trace id) and retries it', async () => {
    const turn = page.locator('article.turn').last();
    await turn.getByRole('button', { name: 'Copy answer' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toContain(
      'Here is **the summary** of the sales data',
    );

    await turn.getByRole('button', { name: 'Good answer' }).click();
    await turn.getByText('Thanks for the feedback').waitFor();
    expect(await turn.getByRole('button', { name: 'Good answer' }).getAttribute('aria-pressed')).toBe('true');
    // The comment box is behind its button, not under every answer.
    expect(await turn.getByRole('textbox', { name: 'Comment on this answer' }).isVisible()).toBe(false);
    await turn.getByRole('button', { name: 'Add a comment' }).click();
    await turn.getByRole('textbox', { name: 'Comment on this answer' }).fill('Clear and short');
    await turn.getByRole('button', { name: 'Send comment' }).click();
    // Sent: the box closes again, empty.
    await turn.locator('.comment-form[hidden]').waitFor({ state: 'attached' });
    expect(await turn.locator('.comment-form input').inputValue()).toBe('');
    const cookie = (await context.cookies(t.url)).find((c) => c.name === 'nat-session');
    // The trace id the page keeps with the answer, as the server stores the conversation for this session.
    const conversationId = new URL(page.url()).searchParams.get('conversation_id')!;
    const trace = await eventually(async () => {
      const stored = await fetch(`${t.url}/conversations/${conversationId}`, {
        headers: { cookie: `nat-session=${cookie?.value}` },
      });
      const body = (await stored.json()) as { turns: { traceId?: string }[] };
      expect(body.turns[0]?.traceId).toMatch(/\S/);
      return body.turns[0].traceId!;
    });
    const res = await fetch(`${t.url}/feedback?observability_trace_id=${trace}`, {
      headers: { cookie: `nat-session=${cookie?.value}` },
    });
    const { items } = (await res.json()) as { items: { reaction_type: string; comment: string | null }[] };
    expect(items.map((i) => i.reaction_type ?? i.comment)).toEqual(
      expect.arrayContaining(['👍', 'Clear and short']),
    );

    await turn.getByRole('button', { name: 'Retry this question' }).click();
    await expect(page.locator('article.turn').count()).resolves.toBe(2);
    await page
      .locator('article.turn')
      .nth(1)
      .getByRole('button', { name: 'Copy answer' })
      .waitFor({ timeout: 15_000 });
    expect(await page.locator('article.turn').nth(1).locator('.message.user').textContent()).toContain(
      'the sales data',
    );
  });

  it('stop cancels the run on the server mid-stream and keeps what was streamed', async () => {
    await ask(page, 'a long story');
    const turn = page.locator('article.turn').last();
    await turn
      .locator('.answer', { hasText: 'Here is the summary of a long story' })
      .waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    // A stop is the person's own act: a neutral line, not an error, even once the server confirms it.
    await turn.locator('.turn-state', { hasText: 'Stopped' }).waitFor({ timeout: 5_000 });
    await expect(turn.locator('.turn-error').isVisible()).resolves.toBe(false);
    const partial = await turn.locator('.answer').textContent();
    expect(partial).not.toContain('Done with');
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).toBe(true);
  });

  it('a new question while a run streams replaces it (the server cancels the old run, as NAT does)', async () => {
    const before = await page.locator('article.turn').count();
    await ask(page, 'first thoughts');
    const first = page.locator('article.turn').nth(before);
    await first
      .locator('.answer', { hasText: 'Here is the summary of first thoughts' })
      .waitFor({ timeout: 10_000 });
    await ask(page, 'second thoughts');
    await first.locator('.turn-state', { hasText: 'Stopped' }).waitFor();
    const second = page.locator('article.turn').nth(before + 1);
    await second.getByRole('button', { name: 'Copy answer' }).waitFor({ timeout: 15_000 });
    expect(await second.locator('.answer').textContent()).toContain('Done with second thoughts.');
    expect(await first.locator('.answer').textContent()).not.toContain('Done with');
  });

  it('lists the conversations the server keeps for this session: renamed and deleted by keyboard', async () => {
    const list = page.getByRole('complementary', { name: 'Conversations' });
    await list.getByRole('button', { name: 'the sales data', exact: true }).waitFor();
    await list.getByRole('button', { name: 'Rename the sales data' }).click();
    const name = list.getByRole('textbox', { name: 'New name for the sales data' });
    await name.fill('Sales');
    await name.press('Enter');
    await list.getByRole('button', { name: 'Sales', exact: true }).waitFor();
    const conversationId = new URL(page.url()).searchParams.get('conversation_id');
    expect(conversationId).toMatch(/^[0-9a-f-]{36}$/);

    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(new URL(page.url()).searchParams.get('conversation_id')).not.toBe(conversationId);
    await expect(page.locator('article.turn').count()).resolves.toBe(0);
    await list.getByRole('button', { name: 'Sales', exact: true }).click();
    await page.locator('article.turn').nth(4).waitFor();
    await expect(page.locator('article.turn').count()).resolves.toBe(5);

    await list.getByRole('button', { name: 'Delete Sales' }).focus();
    await page.keyboard.press('Enter');
    await expect(list.getByRole('button', { name: 'Sales', exact: true }).count()).resolves.toBe(0);
    await expect(page.locator('article.turn').count()).resolves.toBe(0);
  });

  it('switches between light and dark themes and remembers the choice', async () => {
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('light');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(20, 24, 23)');
    await page.reload();
    await page.getByRole('button', { name: 'Switch to light theme' }).waitFor();
    expect(watch.errors).toEqual([]);
  });
});

async function expectText(locator: import('playwright-core').Locator, text: string): Promise<void> {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
}
