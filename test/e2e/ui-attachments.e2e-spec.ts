import type { Browser, Page } from 'playwright-core';
import { reply, type FakeLlm } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';
import {
  ask,
  lastAnswer,
  launchChromium,
  openPage,
  seriousA11yViolations,
  type PageWatch,
} from '../utils/ui-page';

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
// Sets window.__pwned (or opens a dialog) if the name were ever rendered as HTML.
const XSS_NAME = '<img src=x onerror="window.__pwned=1;alert(1)">.png';

requires('chromium')('the page: images attached to a message', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let watch: PageWatch;

  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }),
    (model, app) => ((llm = model), (t = app)),
  );
  beforeAll(async () => {
    browser = await launchChromium();
    ({ page, watch } = await openPage(browser, `${t.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
  });

  const attach = (name: string, mimeType: string, buffer: Buffer) =>
    page.locator('#attach-input').setInputFiles({ name, mimeType, buffer });

  it('an attached image reaches the model with the text; the question shows its thumbnail and name', async () => {
    await page.getByRole('button', { name: 'Attach image' }).waitFor();
    await attach('pixel.png', 'image/png', PNG);
    const chosen = page.getByRole('list', { name: 'Images to send' }).locator('li');
    await chosen.filter({ hasText: 'pixel.png' }).waitFor();
    llm.script(reply.text('A single pixel.'));
    await ask(page, 'What is this?');
    await lastAnswer(page).filter({ hasText: 'A single pixel.' }).waitFor();
    expect(llm.requests[0].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      ],
    });
    const question = page.locator('article.turn').last().locator('.message.user');
    expect(await question.locator('.attachment-name').textContent()).toBe('pixel.png');
    expect(await question.locator('img.thumb').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await chosen.count()).toBe(0);
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });

  it('an image dropped on the composer is attached the same way', async () => {
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob('${PNG.toString('base64')}'), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      document.getElementById('composer').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    })()`);
    const chosen = page.locator('#composer-attachments li');
    await chosen.filter({ hasText: 'dropped.png' }).waitFor();
    await page.getByRole('button', { name: 'Remove dropped.png' }).click();
    expect(await chosen.count()).toBe(0);
  });

  it('is axe-core clean with an image chosen and with one sent, in both themes', async () => {
    // axe is injected as a script, which the page's CSP forbids: a page of its own without it.
    const { context, page: audited } = await openPage(browser, `${t.url}/`, { bypassCSP: true });
    try {
      await audited
        .locator('#attach-input')
        .setInputFiles({ name: 'a.png', mimeType: 'image/png', buffer: PNG });
      await audited.locator('#composer-attachments li').waitFor();
      expect(await seriousA11yViolations(audited)).toEqual([]);
      llm.script(reply.text('Seen.'));
      await ask(audited, 'see');
      await lastAnswer(audited).filter({ hasText: 'Seen.' }).waitFor();
      expect(await seriousA11yViolations(audited)).toEqual([]);
      await audited.getByRole('button', { name: 'Switch to dark theme' }).click();
      expect(await seriousA11yViolations(audited)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a file name carrying HTML is shown as text and runs nothing (XSS)', async () => {
    await attach(XSS_NAME, 'image/png', PNG);
    llm.script(reply.text('Named oddly.'));
    await ask(page, 'and this one?');
    await lastAnswer(page).filter({ hasText: 'Named oddly.' }).waitFor();
    const question = page.locator('article.turn').last().locator('.message.user');
    expect(await question.locator('.attachment-name').textContent()).toBe(XSS_NAME);
    const dangerous = await page.evaluate(
      `document.querySelectorAll('#log [onerror], #composer-attachments [onerror], #log img:not(.thumb)').length`,
    );
    expect(dangerous).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(watch.dialogs).toEqual([]);
  });

  it('a type not accepted, or an image too big, is refused in the browser with a visible message', async () => {
    await attach(`${XSS_NAME}.svg`, 'image/svg+xml', Buffer.from('<svg onload="window.__pwned=2"/>'));
    const error = page.getByRole('alert').filter({ hasText: 'not an accepted image type' });
    await error.waitFor();
    expect(await error.textContent()).toBe(
      `${XSS_NAME}.svg: not an accepted image type (png, jpeg, gif, webp)`,
    );
    expect(await page.locator('#composer-attachments li').count()).toBe(0);
    await attach('huge.png', 'image/png', Buffer.concat([PNG, Buffer.alloc(800 * 1024)]));
    await page.getByRole('alert').filter({ hasText: 'huge.png:' }).waitFor();
    expect(await page.locator('#attach-error').textContent()).toMatch(
      /^huge\.png: \d[\d,]* KiB, over the limit of 756 KiB$/,
    );
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('an image whose bytes are not its type is refused by the server, shown on the turn', async () => {
    await attach('fake.png', 'image/png', Buffer.from('<html>not an image</html>'));
    await ask(page, 'look');
    const error = page.locator('article.turn').last().locator('.turn-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('the data is not a image/png image');
    expect(llm.requests).toHaveLength(0);
  });
});

requires('chromium')('the page: no attach button when the workflow reads no images', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startApp('workflow:\n  _type: echo\n');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('hides it', async () => {
    const { page } = await openPage(browser, `${t.url}/`);
    expect(await page.locator('#attach').isHidden()).toBe(true);
    expect(await page.evaluate(`document.body.dataset.attachments`)).toBe('null');
  });
});
