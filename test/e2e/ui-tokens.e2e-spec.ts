import type { Browser, Page } from 'playwright-core';
import { reply, type FakeLlm } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm, CALCULATOR } from '../utils/fake-llm-config';
import { requires } from '../utils/requires';
import type { TestApp } from '../utils/test-app';
import { ask, lastAnswer, launchChromium, openPage, type PageWatch } from '../utils/ui-page';

const AGENT = { _type: 'tool_calling_agent', tool_names: ['calculator'] };

requires('chromium')('the page: token usage under each answer', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  appWithFakeLlm(
    (model) => agentYaml(model, AGENT, CALCULATOR),
    (model, app) => ((llm = model), (t = app)),
  );
  beforeAll(async () => {
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
  });

  const meta = () => page.locator('article.turn').last().locator('.turn-meta');

  it("shows the tokens the answer's model calls reported, added up, beside its latency and trace", async () => {
    llm.script(
      reply.tools([{ name: 'calculator', arguments: { expression: '2+2' } }], '', {
        prompt_tokens: 1200,
        completion_tokens: 15,
        total_tokens: 1215,
      }),
      reply.text('It is 4.', { prompt_tokens: 1300, completion_tokens: 7, total_tokens: 1307 }),
    );
    // What the socket carries: NAT's trace message, with the run's summed token_usage beside the trace id.
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'What is 2+2?');
    await lastAnswer(page).filter({ hasText: 'It is 4.' }).waitFor();
    await meta().locator('code.trace-id').waitFor();
    const trace = frames
      .map((f) => JSON.parse(f) as { type: string; content: Record<string, unknown> })
      .find((m) => m.type === 'observability_trace_message');
    expect(trace?.content).toEqual({
      observability_trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      token_usage: { prompt_tokens: 2500, completion_tokens: 22, total_tokens: 2522 },
    });
    expect(await meta().locator('.tokens').textContent()).toBe('2,522 tokens (2,500 in, 22 out)');
    expect(await meta().textContent()).toMatch(
      /^Answered in \d+\.\d{1,2} s · 2,522 tokens \(2,500 in, 22 out\) · Trace [0-9a-f-]{16,}$/,
    );
  });

  it('keeps them with the conversation: a reload shows them again', async () => {
    const id = new URL(page.url()).searchParams.get('conversation_id');
    await page.reload();
    await lastAnswer(page).filter({ hasText: 'It is 4.' }).waitFor();
    expect(new URL(page.url()).searchParams.get('conversation_id')).toBe(id);
    expect(await meta().locator('.tokens').textContent()).toBe('2,522 tokens (2,500 in, 22 out)');
  });

  it('shows nothing for counts that are not whole numbers (a stored conversation can hold anything)', async () => {
    const cookie = (await page.context().cookies(t.url)).find((c) => c.name === 'nat-session');
    const headers = { 'content-type': 'application/json', cookie: `nat-session=${cookie?.value}` };
    const turn = (tokens: unknown) => ({
      id: crypto.randomUUID(),
      question: 'q',
      answer: 'Planted answer',
      steps: [],
      status: 'done',
      sentAt: 1,
      endedAt: 2,
      tokens,
    });
    const res = await fetch(`${t.url}/conversations/planted`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        title: 'Planted',
        turns: [
          turn({ prompt_tokens: '<img src=x onerror=alert(1)>', completion_tokens: 1, total_tokens: 2 }),
          turn({ prompt_tokens: -1, completion_tokens: 1, total_tokens: 0 }),
          turn('<b>9</b>'),
        ],
      }),
    });
    expect(res.status).toBeLessThan(300);
    await page.goto(`${t.url}/?conversation_id=planted`);
    await page
      .locator('article.turn')
      .nth(2)
      .locator('.answer')
      .filter({ hasText: 'Planted answer' })
      .waitFor();
    expect(await page.locator('.turn-meta .tokens').count()).toBe(0);
    expect(await page.locator('.turn-meta img').count()).toBe(0);
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });
});
