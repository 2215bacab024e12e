import type { Browser, BrowserContext, Page } from 'playwright-core';
import { requires } from '../utils/requires';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { ask, launchChromium, openPage, type PageWatch } from '../utils/ui-page';

const STEPS = `- prompt:
    input_type: radio
    text: 'Ship <b>{{input}}</b> today?'
    options: [{ id: y, label: Ship, value: y }, { id: n, label: Wait, value: n }]
    save_as: decision`;

/**
 * Headless Chromium shows no system notifications and never hides a tab by itself: the page's
 * `Notification` is recorded (the page still calls the browser's own API with the permission granted),
 * and the tab is hidden by telling the document so.
 */
const RECORD_NOTIFICATIONS = `(() => {
  window.__notifications = [];
  window.__hidden = false;
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notifications.push({ title, body: options && options.body });
    }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
  Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
  Object.defineProperty(document, 'visibilityState', { get: () => (window.__hidden ? 'hidden' : 'visible') });
})()`;

requires('chromium')('the page: a browser notification when a prompt waits and the tab is hidden', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watch: PageWatch;

  beforeAll(async () => {
    t = await startApp(scriptedYaml(STEPS, 'Decided: {{decision.label}}'));
    browser = await launchChromium();
    ({ context, page, watch } = await openPage(browser, `${t.url}/`));
    await context.grantPermissions(['notifications'], { origin: t.url });
    await context.addInitScript(RECORD_NOTIFICATIONS);
    await page.reload();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const notifications = () =>
    page.evaluate('window.__notifications') as Promise<{ title: string; body: string }[]>;
  const prompts = () =>
    page.getByRole('log', { name: 'Conversation' }).locator('form.prompt-radio:not(.prompt-answered)');

  it('off until chosen: a hidden tab gets no notification', async () => {
    await page.evaluate('window.__hidden = true');
    await ask(page, 'the release');
    await prompts().waitFor();
    expect(await notifications()).toEqual([]);
  });

  it('chosen in Settings, a prompt asked while the tab is hidden notifies, with the question as plain text', async () => {
    await page.evaluate('window.__hidden = false');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('checkbox', { name: /Notify me when the workflow asks me something/ }).check();
    await page.getByText('You will be notified when this tab is hidden.').waitFor();
    await page.getByRole('button', { name: 'Chat' }).click();
    await page.getByRole('button', { name: 'New conversation' }).click();

    // Visible: the page itself shows the prompt, no notification.
    await ask(page, 'the hotfix');
    await prompts().first().waitFor();
    expect(await notifications()).toEqual([]);

    await page.evaluate('window.__hidden = true');
    await page.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'the <i>beta</i>');
    await prompts().first().waitFor();
    expect(await notifications()).toEqual([
      { title: 'Waiting for you · scripted', body: 'Ship <b>the <i>beta</i></b> today?' },
    ]);
    expect(watch.dialogs).toEqual([]);
  });
});
