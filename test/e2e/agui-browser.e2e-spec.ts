import type { Browser } from 'playwright-core';
import { approvalPage } from '../utils/agui-browser-page';
import { startTicketApi, ticketAgentYaml } from '../utils/agui-ticket-api';
import { FakeLlm, reply } from '../utils/fake-llm';
import { chromiumPath, requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';

jest.setTimeout(60_000);

requires('chromium')('AG-UI in a real browser (Chromium, @ag-ui/client bundled for the page)', () => {
  let llm: FakeLlm;
  let api: Awaited<ReturnType<typeof startTicketApi>>;
  let t: TestApp;
  let browser: Browser;
  let html: string;

  beforeAll(async () => {
    llm = await FakeLlm.start();
    api = await startTicketApi();
    t = await startApp(ticketAgentYaml(llm, api.url));
    html = await approvalPage();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
    await llm.close();
    await api.close();
  });

  it('a person approves the agent’s ask_confirmation in the page; the tool runs and the answer shows', async () => {
    llm.script(
      reply.tools([
        {
          name: 'ask_confirmation',
          arguments: { question: 'Create ticket "Printer jam"?', target_tool: 'create_ticket' },
        },
      ]),
      reply.tools([{ name: 'create_ticket', arguments: { body: { title: 'Printer jam' } } }]),
      reply.text('Created ticket 1.'),
    );
    const page = await browser.newPage();
    // The test serves the page on the server's own origin, so the client's fetch is same-origin.
    await page.route(`${t.url}/agui-approval.html`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: html }),
    );
    await page.goto(`${t.url}/agui-approval.html`);
    await page.waitForSelector('#approve');
    expect(await page.textContent('#ask')).toBe('Create ticket "Printer jam"?');
    expect(api.created).toEqual([]);
    await page.click('#approve');
    await page.waitForSelector('#answer:not(:empty)');
    expect(await page.textContent('#answer')).toBe('Created ticket 1.');
    expect(await page.textContent('#pending')).toBe('0');
    expect(await page.textContent('#error')).toBe('');
    expect(api.created).toEqual([{ title: 'Printer jam' }]);
    const events = await page.$$eval('#events li', (items) => items.map((i) => i.textContent));
    expect(events.filter((e) => e === 'RUN_STARTED')).toHaveLength(2);
    expect(events.filter((e) => e === 'RUN_FINISHED')).toHaveLength(2);
  });
});
