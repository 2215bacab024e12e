import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumPath } from './requires';
import { WAIT_MS } from './timing';

const ROOT = join(__dirname, '..', '..');
/** Where the tests leave screenshots of the page (docs/screenshots; only the two the README shows are kept in git). */
export const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');

/** Builds the page into dist/public when `npm run build` has not (a `npx jest` on a fresh clone). */
export async function ensurePageBuilt(): Promise<void> {
  if (existsSync(join(ROOT, 'dist', 'public', 'index.html'))) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { buildUi } = require('../../scripts/build-ui.js') as { buildUi: () => Promise<unknown> };
  await buildUi();
}

export async function launchChromium(): Promise<Browser> {
  await ensurePageBuilt();
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What the page did that it should not have: script errors, CSP violations, requests to other hosts. */
export interface PageWatch {
  errors: string[];
  foreignRequests: string[];
  /** Set by a payload's script if it ever ran. */
  dialogs: string[];
}

/** A fresh browser profile (its own cookies and storage) with the page open and watched. */
export async function openPage(
  browser: Browser,
  url: string,
  options: { colorScheme?: 'light' | 'dark'; bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
    bypassCSP: options.bypassCSP ?? false,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const watch: PageWatch = { errors: [], foreignRequests: [], dialogs: [] };
  const origin = new URL(url).origin;
  page.on('pageerror', (err) => watch.errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') watch.errors.push(msg.text());
  });
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  context.on('request', (req) => {
    const target = new URL(req.url());
    if (target.origin !== origin && !['ws:', 'data:'].includes(target.protocol)) {
      watch.foreignRequests.push(req.url());
    }
  });
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return { context, page, watch };
}

/** Writes a screenshot for the docs. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Sends a chat message the way a person does: type it and press Enter. */
export async function ask(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The prompt form of `input_type` that is waiting (not yet answered). */
export function openPrompt(page: Page, inputType: string) {
  return page.locator(
    `form.prompt[data-input-type="${inputType}"]:not(.prompt-answered):not(.prompt-closed)`,
  );
}

/** The last assistant answer's rendered text. */
export function lastAnswer(page: Page) {
  return page.locator('article.turn').last().locator('.answer');
}

/**
 * axe-core's serious and critical violations on the page as it is now (needs a context opened with
 * bypassCSP: axe is injected as a script the page's CSP would refuse).
 */
export async function seriousA11yViolations(page: Page): Promise<{ id: string; nodes: string[] }[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) {
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  }
  return (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) })))`)) as {
    id: string;
    nodes: string[];
  }[];
}
