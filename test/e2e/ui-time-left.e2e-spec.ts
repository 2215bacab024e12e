import type { Browser, Locator, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import {
  ask,
  launchChromium,
  openPage,
  openPrompt,
  seriousA11yViolations,
  type PageWatch,
} from '../utils/ui-page';

const TIMEOUT_S = 12;
const STEPS = `- prompt:
    input_type: binary_choice
    text: 'Ship {{input}}?'
    options: [{ id: 'y', label: 'Ship', value: 'y' }, { id: 'n', label: 'Hold', value: 'n' }]
    timeout: ${TIMEOUT_S}
    error: 'The shipping window closed.'
    save_as: ship`;

/** Seconds a prompt's countdown shows ("m:ss left"). */
async function secondsLeft(form: Locator): Promise<number> {
  const text = (await form.getByRole('timer').textContent()) ?? '';
  const match = /^(\d+):(\d\d) left$/.exec(text);
  if (!match) throw new Error(`no countdown in "${text}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the form's countdown shows less than `seconds` (it moves on its own). */
async function countsBelow(form: Locator, seconds: number): Promise<void> {
  await form.getByRole('timer').evaluate(
    (el, below) =>
      new Promise<void>((resolve) => {
        const left = () => {
          const [m, s] = (el.textContent ?? '').replace(' left', '').split(':').map(Number);
          return m * 60 + s;
        };
        const check = () => (left() < below ? resolve() : setTimeout(check, 100));
        check();
      }),
    seconds,
  );
}

requires('chromium')('the page: time left on prompts with a timeout', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;
  let session: Record<string, string>;

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Shipping {{input}}: {{ship}}'));
    browser = await launchChromium();
    let context;
    ({ context, page, watch } = await openPage(browser, `${t.url}/`, { bypassCSP: true }));
    const cookie = (await context.cookies(t.url)).find((c) => c.name === 'nat-session');
    session = { cookie: `nat-session=${cookie?.value}` };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("the inbox counts down from the server's deadline, not from the full timeout, and shows the expiry", async () => {
    const asked = Date.now();
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'crate 9' }, session);
    expect(res.status).toBe(202);
    const id = (res.json as { execution_id: string }).execution_id;
    // The list says when the prompt stops taking an answer: its timeout after it was asked.
    const listed = (await (await fetch(`${t.url}/executions`, { headers: session })).json()) as {
      data: { execution_id: string; expires_at?: string }[];
    };
    const expiresAt = Date.parse(listed.data.find((d) => d.execution_id === id)?.expires_at ?? '');
    expect(expiresAt).toBeGreaterThanOrEqual(asked + TIMEOUT_S * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + TIMEOUT_S * 1000);

    // Time passes between the asking and the looking: the inbox must show what is left, not the timeout.
    await sleep(3000);
    await page.getByRole('button', { name: 'Inbox' }).click();
    const item = page.locator(`li.inbox-item[data-execution-id="${id}"]`);
    const form = item.locator('form.prompt');
    await form.getByRole('timer').filter({ hasText: 'left' }).waitFor();
    const first = await secondsLeft(form);
    expect(first).toBeLessThanOrEqual(TIMEOUT_S - 2);
    expect(first).toBeGreaterThan(0);
    expect(await item.locator('time.inbox-expiry').getAttribute('datetime')).toBe(
      new Date(expiresAt).toISOString(),
    );
    expect(await item.locator('.inbox-meta').textContent()).toContain(' · answer by ');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // It counts down while the person looks.
    await countsBelow(form, first);
    // At the deadline the form closes itself and says when it expired, with the prompt's error.
    const outcome = form.locator('.prompt-outcome');
    await outcome.waitFor({ timeout: (TIMEOUT_S + 3) * 1000 });
    expect(await outcome.textContent()).toMatch(/^Expired at \S.* · The shipping window closed\.$/);
    expect(await form.getByRole('button').count()).toBe(0);
    expect(await form.locator('.prompt-timer').textContent()).toBe('');
  }, 40_000);

  it('the chat card counts down too, and shows the expiry in place', async () => {
    await page.getByRole('button', { name: 'Chat' }).click();
    await ask(page, 'crate 10');
    const form = openPrompt(page, 'binary_choice');
    await form.getByRole('timer').filter({ hasText: 'left' }).waitFor();
    const first = await secondsLeft(form);
    expect(first).toBeLessThanOrEqual(TIMEOUT_S);
    await countsBelow(form, first);
    const closed = page.locator('article.turn').last().locator('form.prompt .prompt-outcome');
    await closed.waitFor({ timeout: (TIMEOUT_S + 3) * 1000 });
    expect(await closed.textContent()).toMatch(/^Expired at \S.* · The shipping window closed\.$/);
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  }, 40_000);
});
