import type { Browser } from 'playwright-core';
import { chromiumPath, requires } from '../utils/requires';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const CHROMIUM = chromiumPath();

/** What the page saw: every message received, and how the socket closed. */
interface Seen {
  received: { type: string; status?: string; content: Record<string, unknown> }[];
  closed: { code: number; reason: string } | null;
}

/**
 * Runs in the page: the NAT UI's way of talking to the server (`?session=` and `?conversation_id=` on
 * the URL, replies carrying the interaction message's `parent_id` and `thread_id`, choices answered
 * with the option's value).
 */
function chatInBrowser(args: { query: string; answers: Record<string, string> }): Promise<Seen> {
  return new Promise((resolve) => {
    const seen: Seen = { received: [], closed: null };
    const { host } = (globalThis as unknown as { location: { host: string } }).location;
    const ws = new WebSocket(`ws://${host}/websocket?${args.query}`);
    ws.onopen = () =>
      ws.send(
        JSON.stringify({
          type: 'user_message',
          schema_type: 'chat_stream',
          id: crypto.randomUUID(),
          conversation_id: 'conv-browser',
          content: { messages: [{ role: 'user', content: [{ type: 'text', text: 'the report' }] }] },
          timestamp: new Date().toISOString(),
        }),
      );
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data as string);
      seen.received.push(message);
      if (message.type === 'system_interaction_message' && message.content.input_type !== 'notification') {
        const options = (message.content.options ?? []) as { label: string; value: string }[];
        const wanted = args.answers[message.content.text as string];
        const value = options.find((o) => o.label === wanted)?.value ?? wanted;
        ws.send(
          JSON.stringify({
            type: 'user_interaction_message',
            id: crypto.randomUUID(),
            conversation_id: 'conv-browser',
            thread_id: message.thread_id,
            parent_id: message.parent_id,
            content: { messages: [{ role: 'user', content: [{ type: 'text', text: value }] }] },
            timestamp: new Date().toISOString(),
          }),
        );
      }
      if (message.type === 'observability_trace_message') ws.close();
    };
    ws.onclose = (event) => {
      seen.closed = { code: event.code, reason: event.reason };
      resolve(seen);
    };
  });
}

requires('chromium')('WebSocket gateway in a real browser (Chromium, the browser WebSocket API)', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: notification, text: 'Working on {{input}}' }
- prompt: { input_type: text, text: 'For whom?', save_as: who }
- prompt:
    input_type: radio
    text: 'Send how?'
    options: [{ id: e, label: Email, value: email }, { id: s, label: SMS, value: sms }]
    save_as: how
- step: { name: build, kind: tool, input: { who: '{{who}}' }, payload: done }`,
        '{{input}} for {{who}} by {{how.label}}',
      ),
    );
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('runs a chat, shows the steps, answers the prompts as the NAT UI does, and gets the answer', async () => {
    // A same-origin page to script from; /health's deny-all CSP (a JSON answer) would refuse the socket.
    const page = await browser.newPage({ bypassCSP: true });
    await page.goto(`${t.url}/health`);
    const seen = await page.evaluate(chatInBrowser, {
      query: 'session=browser-user&conversation_id=conv-browser',
      answers: { 'For whom?': 'the board', 'Send how?': 'SMS' },
    });
    const kinds = seen.received.map((m) => m.content.input_type ?? m.type);
    expect(kinds).toEqual([
      'notification',
      'text',
      'radio',
      'system_intermediate_message',
      'system_intermediate_message',
      'system_response_message',
      'system_response_message',
      'observability_trace_message',
    ]);
    expect(seen.received[5].content.text).toBe('the report for the board by SMS');
    expect(seen.received[6].status).toBe('complete');
    expect(seen.closed?.code).toBe(1005);
  });

  it('a browser can read why the server closed the socket (1008 "Invalid session ID")', async () => {
    // A same-origin page to script from; /health's deny-all CSP (a JSON answer) would refuse the socket.
    const page = await browser.newPage({ bypassCSP: true });
    await page.goto(`${t.url}/health`);
    const seen = await page.evaluate(chatInBrowser, { query: 'session=not%20valid', answers: {} });
    expect(seen.closed).toEqual({ code: 1008, reason: 'Invalid session ID' });
    expect(seen.received).toEqual([]);
  });
});
