import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage, screenshot, type PageWatch } from '../utils/ui-page';

const STEPS = `- prompt:
    input_type: radio
    text: 'Approve the refund of {{input}}?'
    options: [{ id: ok, label: Approve, value: ok }, { id: no, label: Reject, value: no }]
    save_as: decision`;

requires('chromium')('the page: approvals inbox', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;
  let session: Record<string, string>;

  async function startOverHttp(headers: Record<string, string>, input: string): Promise<string> {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: input }, headers);
    expect(res.status).toBe(202);
    return (res.json as { execution_id: string }).execution_id;
  }

  async function statusOf(id: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${t.url}/executions/${id}`, { headers: session });
    return (await res.json()) as Record<string, unknown>;
  }

  beforeAll(async () => {
    // Browser sessions (the cookie) and one configured API key, which decides when it is sent.
    const general = `general:
  auth:
    sources: [cookie, api_key]
    api_keys:
      - { hash: 'sha256:${createHash('sha256').update('key-of-dana').digest('hex')}', user_id: dana }
`;
    t = await startApp(scriptedYaml(STEPS, 'Refund of {{input}}: {{decision.label}}', general));
    browser = await launchChromium();
    ({ context, page, watch } = await openPage(browser, `${t.url}/`));
    const cookie = (await context.cookies(t.url)).find((c) => c.name === 'nat-session');
    expect(cookie?.httpOnly).toBe(true);
    session = { cookie: `nat-session=${cookie?.value}` };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists the prompt of an execution started over HTTP, and answers it in place', async () => {
    const mine = await startOverHttp(session, 'order 42');
    await startOverHttp({ cookie: 'nat-session=someone-else' }, 'order 7');

    await page.getByRole('button', { name: 'Inbox' }).click();
    const inbox = page.getByRole('region', { name: 'Waiting for you' });
    await inbox.getByRole('status').filter({ hasText: '1 waiting for you' }).waitFor();
    const item = inbox.locator(`li[data-execution-id="${mine}"]`);
    expect(await item.locator('.prompt-text').textContent()).toBe('Approve the refund of order 42?');
    expect(await inbox.locator('li.inbox-item').count()).toBe(1);
    // No timeout of its own: the server's default_prompt_timeout_seconds (an hour) runs down.
    expect(await item.locator('.inbox-expiry').count()).toBe(1);
    expect(await item.getByRole('timer').textContent()).toMatch(/^(1:00:00|59:\d\d) left$/);
    await screenshot(page, 'inbox');

    await item.getByRole('radio', { name: 'Approve' }).check();
    await item.getByRole('button', { name: 'Send' }).click();
    await item.getByText('Answered: Approve').waitFor();
    const ended = await eventually(async () => {
      const body = await statusOf(mine);
      expect(body.status).toBe('completed');
      return body;
    });
    expect(JSON.stringify(ended.result)).toContain('Refund of order 42: Approve');

    await inbox.getByRole('button', { name: 'Refresh' }).click();
    await inbox.getByRole('status').filter({ hasText: 'Nothing is waiting for you.' }).waitFor();
  });

  it("a question carrying markup (the workflow put a user's input in it) is shown as text, and runs nothing", async () => {
    const payload = '<img src=x onerror="window.__pwned=1">';
    const id = await startOverHttp(session, payload);
    await page.getByRole('button', { name: 'Inbox' }).click();
    const inbox = page.getByRole('region', { name: 'Waiting for you' });
    await inbox.getByRole('button', { name: 'Refresh' }).click();
    const item = inbox.locator(`li[data-execution-id="${id}"]`);
    await item.waitFor();
    expect(await item.locator('.prompt-text').textContent()).toBe(`Approve the refund of ${payload}?`);
    expect(await inbox.locator('img, [onerror]').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    const cancelled = await fetch(`${t.url}/executions/${id}`, { method: 'DELETE', headers: session });
    expect(cancelled.status).toBe(204);
    await inbox.getByRole('button', { name: 'Refresh' }).click();
    await inbox.getByRole('status').filter({ hasText: 'Nothing is waiting for you.' }).waitFor();
  });

  it('an answer the server refuses is shown on the prompt', async () => {
    const id = await startOverHttp(session, 'order 43');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const item = page.locator(`li[data-execution-id="${id}"]`);
    await item.waitFor();
    // Answered elsewhere first (another tab, a script): the inbox's answer comes second and gets 400.
    const { response_url } = (await statusOf(id)) as { response_url: string };
    const first = await postJson(
      `${t.url}${response_url}`,
      { response: { type: 'radio', selected_option: { id: 'no' } } },
      session,
    );
    expect(first.status).toBe(204);
    await item.getByRole('radio', { name: 'Approve' }).check();
    await item.getByRole('button', { name: 'Send' }).click();
    await item.getByRole('alert').filter({ hasText: 'has already been resolved' }).waitFor();
  });

  it('with an API key set in the settings, the page acts as that identity (kept for the tab only)', async () => {
    const keyed = await startOverHttp({ 'x-api-key': 'key-of-dana' }, 'order 44');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'API key' }).check();
    await page.getByLabel('Key or token').fill('key-of-dana');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved for this tab.').waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('interlude.credentials')`)).toContain('key-of-dana');
    expect(await page.evaluate(`localStorage.getItem('interlude.credentials')`)).toBeNull();
    // The workflow's input, from /openapi.json.
    const schema = page.getByRole('table');
    await schema.getByRole('rowheader', { name: 'input_message' }).waitFor();

    await page.getByRole('button', { name: 'Inbox' }).click();
    await page.locator(`li[data-execution-id="${keyed}"]`).waitFor();
    expect(await page.locator('li.inbox-item').count()).toBe(1);
    expect(watch.errors.filter((e) => !e.includes('400'))).toEqual([]);
  });

  it('a prompt asked in a chat names its conversation in the inbox and opens the chat at it', async () => {
    // The page acts as dana since the previous test: the chat's run is hers, as is the inbox.
    await page.getByRole('button', { name: 'Chat' }).click();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'order 45');
    // The chat's own prompt (the hidden inbox holds the forms it showed).
    const chatPrompt = () => page.getByRole('log', { name: 'Conversation' }).locator('form.prompt-radio');
    await chatPrompt().waitFor();
    const conversationId = new URL(page.url()).searchParams.get('conversation_id');
    await page.getByRole('button', { name: 'New conversation' }).click();

    await page.getByRole('button', { name: 'Inbox' }).click();
    const inbox = page.getByRole('region', { name: 'Waiting for you' });
    const item = inbox.locator('li.inbox-item').filter({ hasText: 'Approve the refund of order 45?' });
    await eventually(async () => {
      await inbox.getByRole('button', { name: 'Refresh' }).click();
      await item.locator('.inbox-conversation', { hasText: 'order 45' }).waitFor({ timeout: 2_000 });
    });
    await screenshot(page, 'inbox-conversation');
    await item.getByRole('button', { name: 'Open in chat' }).click();
    expect(new URL(page.url()).searchParams.get('conversation_id')).toBe(conversationId);
    const prompt = chatPrompt();
    await prompt.getByRole('radio', { name: 'Approve' }).check();
    await prompt.getByRole('button', { name: 'Send' }).click();
    await lastAnswer(page).filter({ hasText: 'Refund of order 45: Approve' }).waitFor();
  });
});
