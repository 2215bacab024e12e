import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage, screenshot, type PageWatch } from '../utils/ui-page';

const STEPS = `- stream: { text: 'Notes on {{input}}: ', delay_seconds: 0.01 }`;
const sha = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
// Browser sessions, and two people's API keys: a key sent decides who the page is.
const GENERAL = `general:
  auth:
    sources: [cookie, api_key]
    api_keys:
      - { hash: '${sha('key-of-dana')}', user_id: dana }
      - { hash: '${sha('key-of-erin')}', user_id: erin }
`;

/** A fresh browser profile acting as the owner of `key` (set in Settings, as a person does). */
async function browserAs(
  browser: Browser,
  url: string,
  key: string,
): Promise<{ page: Page; watch: PageWatch }> {
  const { page, watch } = await openPage(browser, url);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('radio', { name: 'API key' }).check();
  await page.getByLabel('Key or token').fill(key);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved for this tab.').waitFor();
  await page.getByRole('button', { name: 'Chat' }).click();
  // A new conversation connects with the key (the socket's auth_message).
  await page.getByRole('button', { name: 'New conversation' }).click();
  return { page, watch };
}

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Conversations' });
const titles = (page: Page) => sidebar(page).locator('.conversation-title').allTextContents();

async function answered(page: Page, question: string): Promise<void> {
  await ask(page, question);
  await page
    .locator('article.turn')
    .last()
    .getByRole('button', { name: 'Copy answer' })
    .waitFor({ timeout: 15_000 });
}

requires('chromium')('the page: conversations kept by the server, per identity', () => {
  let t: TestApp;
  let browser: Browser;
  let first: { page: Page; watch: PageWatch };
  let second: { page: Page; watch: PageWatch };

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Done with {{input}}.', GENERAL));
    browser = await launchChromium();
    first = await browserAs(browser, `${t.url}/`, 'key-of-dana');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a second browser with the same identity sees the same conversations, answers included', async () => {
    await answered(first.page, 'the sales data');
    await first.page.getByRole('button', { name: 'New conversation' }).click();
    await answered(first.page, 'a hiring plan');
    expect(await titles(first.page)).toEqual(['a hiring plan', 'the sales data']);

    second = await browserAs(browser, `${t.url}/`, 'key-of-dana');
    await eventually(async () => {
      await second.page.reload();
      await second.page.getByRole('textbox', { name: 'Message' }).waitFor();
      expect(await titles(second.page)).toEqual(['a hiring plan', 'the sales data']);
    });
    await sidebar(second.page).getByRole('button', { name: 'the sales data', exact: true }).click();
    await lastAnswer(second.page).filter({ hasText: 'Done with the sales data.' }).waitFor();
    expect(await second.page.locator('article.turn .message.user').allTextContents()).toEqual([
      expect.stringContaining('the sales data'),
    ]);
    await screenshot(second.page, 'conversations');
    expect([...first.watch.errors, ...second.watch.errors]).toEqual([]);
  });

  it('a rename or a delete in one browser is what the other lists after a reload', async () => {
    const list = sidebar(second.page);
    await list.getByRole('button', { name: 'Rename a hiring plan' }).click();
    const name = list.getByRole('textbox', { name: 'New name for a hiring plan' });
    await name.fill('Hiring, <img src=x onerror=alert(1)>');
    await name.press('Enter');
    await list.getByRole('button', { name: 'Hiring, <img src=x onerror=alert(1)>', exact: true }).waitFor();

    await sidebar(first.page).getByRole('button', { name: 'Delete the sales data' }).click();
    await eventually(async () => {
      await second.page.reload();
      await second.page.getByRole('textbox', { name: 'Message' }).waitFor();
      // The title is text: the markup in it is shown, never run.
      expect(await titles(second.page)).toEqual(['Hiring, <img src=x onerror=alert(1)>']);
    });
    expect(await sidebar(second.page).locator('img').count()).toBe(0);
    expect([...first.watch.dialogs, ...second.watch.dialogs]).toEqual([]);
  });

  it('another identity sees none of them, and cannot read one by its id', async () => {
    const other = await browserAs(browser, `${t.url}/`, 'key-of-erin');
    await other.page.getByRole('button', { name: 'New conversation' }).waitFor();
    await expect(titles(other.page)).resolves.toEqual([]);
    const id = await eventually(async () => {
      const res = await fetch(`${t.url}/conversations`, { headers: { 'x-api-key': 'key-of-dana' } });
      const { items } = (await res.json()) as { items: { id: string }[] };
      expect(items).toHaveLength(1);
      return items[0].id;
    });
    const res = await fetch(`${t.url}/conversations/${id}`, { headers: { 'x-api-key': 'key-of-erin' } });
    expect(res.status).toBe(404);
    await other.page.close();
  });

  it('searches titles, questions and answers on the server, showing what matches', async () => {
    const { page } = first;
    await page.getByRole('button', { name: 'New conversation' }).click();
    await answered(page, 'quarterly revenue');
    // The page saves the conversation after the answer shows: search once the server has it.
    await eventually(async () => {
      const res = await fetch(`${t.url}/conversations?q=quarterly`, {
        headers: { 'x-api-key': 'key-of-dana' },
      });
      expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(1);
    });
    const search = sidebar(page).getByRole('searchbox', { name: 'Search conversations' });
    await search.fill('REVENUE');
    await eventually(async () => expect(await titles(page)).toEqual(['quarterly revenue']));
    // The answer's words count too ("Done with …" is in every answer).
    await search.fill('done with');
    await eventually(async () => expect((await titles(page)).length).toBe(2));
    await search.fill('no such words');
    await sidebar(page)
      .getByRole('status')
      .filter({ hasText: 'No conversation mentions “no such words”.' })
      .waitFor();
    expect(await titles(page)).toEqual([]);
    await search.fill('');
    await eventually(async () => expect((await titles(page)).length).toBe(2));
  });

  it('edit and resend: the last question is replaced, with its answer, here and on the server', async () => {
    const { page } = first;
    await page.getByRole('button', { name: 'New conversation' }).click();
    await answered(page, 'the budget for 2026');
    await answered(page, 'the budget for 2072');
    const turns = page.locator('article.turn');
    // Only the last question can be edited.
    await expect(turns.first().getByRole('button', { name: 'Edit your message' }).count()).resolves.toBe(0);
    await turns.last().getByRole('button', { name: 'Edit your message' }).click();
    const box = turns.last().getByRole('textbox', { name: 'Your message' });
    expect(await box.inputValue()).toBe('the budget for 2072');
    await box.fill('the budget for 2027');
    await box.press('Enter');
    await lastAnswer(page).filter({ hasText: 'Done with the budget for 2027.' }).waitFor({ timeout: 15_000 });
    expect(await turns.locator('.question-text').allTextContents()).toEqual([
      'the budget for 2026',
      'the budget for 2027',
    ]);
    const id = new URL(page.url()).searchParams.get('conversation_id')!;
    await eventually(async () => {
      const res = await fetch(`${t.url}/conversations/${id}`, { headers: { 'x-api-key': 'key-of-dana' } });
      const { turns: stored } = (await res.json()) as { turns: { question: string; answer: string }[] };
      expect(stored.map((turn) => turn.question)).toEqual(['the budget for 2026', 'the budget for 2027']);
      expect(stored[1].answer).toContain('Done with the budget for 2027.');
    });
  });

  it('each answer shows how long it took and its trace id, the trace its feedback goes to', async () => {
    const turn = first.page.locator('article.turn').last();
    const meta = turn.locator('.turn-meta');
    expect(await meta.locator('.latency').textContent()).toMatch(/^Answered in \d+\.\d{1,2} s$/);
    const trace = (await meta.locator('code.trace-id').textContent())!;
    expect(trace).toMatch(/^[0-9a-f-]{16,}$/);
    // A scripted workflow calls no model: no token counts to show.
    expect(await meta.locator('.tokens').count()).toBe(0);
    await turn.getByRole('button', { name: 'Good answer' }).click();
    await turn.getByText('Thanks for the feedback').waitFor();
    const res = await fetch(`${t.url}/feedback?observability_trace_id=${trace}`, {
      headers: { 'x-api-key': 'key-of-dana' },
    });
    const { items } = (await res.json()) as { items: { reaction_type: string }[] };
    expect(items.map((i) => i.reaction_type)).toEqual(['👍']);
  });

  it('the API refuses what it must not keep: no identity, a bad id, an oversized conversation', async () => {
    const put = (
      id: string,
      body: unknown,
      headers: Record<string, string> = { 'x-api-key': 'key-of-dana' },
    ) =>
      fetch(`${t.url}/conversations/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    // The cookie source is on, but a request without cookie or key has no identity.
    expect((await fetch(`${t.url}/conversations`)).status).toBe(401);
    expect((await put('c1', { title: 'x', turns: [] }, {})).status).toBe(401);
    expect((await put('a%20b', { title: 'x', turns: [] })).status).toBe(422);
    expect((await put('c1', { title: 'x', turns: 'no' })).status).toBe(422);
    expect((await put('c1', { title: 'x'.repeat(121), turns: [] })).status).toBe(422);
    const big = [{ question: 'q', answer: 'a'.repeat(600 * 1024) }];
    expect((await put('c1', { title: 'big', turns: big })).status).toBe(413);
    const ok = await put('c1', { title: 'small', turns: [{ question: 'q', answer: 'a' }] });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { title: string }).title).toBe('small');
    const gone = await fetch(`${t.url}/conversations/c1`, {
      method: 'DELETE',
      headers: { 'x-api-key': 'key-of-dana' },
    });
    expect(gone.status).toBe(204);
    const again = await fetch(`${t.url}/conversations/c1`, {
      method: 'DELETE',
      headers: { 'x-api-key': 'key-of-dana' },
    });
    expect(again.status).toBe(404);
  });
});
