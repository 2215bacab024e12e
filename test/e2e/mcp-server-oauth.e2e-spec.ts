import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { startCalendarApp, type CalendarApp } from '../utils/calendar-app';
import { mcpClient, type McpConnection } from '../utils/mcp-client';
import { OAuthBrowser } from '../utils/oauth-browser';
import { eventually } from '../utils/test-app';

type Params = ElicitRequest['params'];
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const call = (mcp: McpConnection) =>
  mcp.client.callTool({
    name: 'scripted',
    arguments: { input_message: 'my calendar' },
  }) as Promise<CallToolResult>;

/**
 * An OAuth consent the workflow waits for, asked of an MCP client: a URL-mode elicitation (2025-11-25)
 * whose link the person opens in a browser and consents with at the real authorization server.
 */
describe('MCP server face: an OAuth consent is a URL-mode elicitation', () => {
  let calendar: CalendarApp;
  beforeAll(async () => (calendar = await startCalendarApp()), 30_000);
  afterAll(() => calendar?.close());

  /** A client of `user` (its session cookie) that declared `elicitation` with these modes. */
  async function clientOf(
    user: string,
    modes: NonNullable<ClientCapabilities['elicitation']>,
    answer: (p: Params) => ElicitResult,
  ) {
    const headers = { cookie: `nat-session=${user}` };
    const mcp = await mcpClient(calendar.url, { headers, capabilities: { elicitation: modes } });
    const asked: Params[] = [];
    const completed: string[] = [];
    mcp.client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      asked.push(params);
      return answer(params);
    });
    mcp.client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => {
      completed.push(params.elicitationId);
    });
    const browser = OAuthBrowser.of(calendar.url, calendar.auth, user, headers);
    return { mcp, asked, completed, browser };
  }

  it('the client opens the start link, the person consents at the provider, and the call completes', async () => {
    let consent: Promise<unknown> | undefined;
    const alice = await clientOf('alice', { form: {}, url: {} }, (params) => {
      // The client opens the link in the person's browser and says so at once (accept).
      if (params.mode === 'url') consent = alice.browser.complete(params.url);
      return { action: 'accept' };
    });
    try {
      const result = await call(alice.mcp);
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe('Hello alice');
      expect(alice.asked).toEqual([
        {
          mode: 'url',
          elicitationId: expect.any(String),
          url: expect.stringMatching(new RegExp(`^${calendar.url}/auth/redirect/start\\?state=`)),
          message: expect.stringContaining('calendar'),
        },
      ]);
      const elicitation = alice.asked[0] as Extract<Params, { mode: 'url' }>;
      expect(new URL(elicitation.url).searchParams.get('state')).toBe(elicitation.elicitationId);
      expect(await consent).toMatchObject({ status: 200 });
      // The server told the client the out-of-band step is done, before the call's result.
      expect(alice.completed).toEqual([elicitation.elicitationId]);
      expect(calendar.auth.log.resourceCalls.some((c) => c.sub === 'alice')).toBe(true);
    } finally {
      await alice.mcp.close();
    }
  }, 30_000);

  it('declining the consent cancels the execution: the call is an error and nothing reaches the provider', async () => {
    const bob = await clientOf('bob', { url: {} }, () => ({ action: 'decline' }));
    try {
      const result = await call(bob.mcp);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/cancelled.*decline on the calendar consent/);
      expect(bob.asked).toHaveLength(1);
      expect(calendar.auth.log.resourceCalls.some((c) => c.sub === 'bob')).toBe(false);
    } finally {
      await bob.mcp.close();
    }
  }, 30_000);

  it('a client without URL elicitation gets the start link as an error; the execution finishes once the person consents', async () => {
    const carol = await clientOf('carol', { form: {} }, () => ({ action: 'accept', content: {} }));
    try {
      const result = await call(carol.mcp);
      expect(result.isError).toBe(true);
      expect(carol.asked).toEqual([]);
      const handOff = result.structuredContent as { auth_url: string; status_url: string; status: string };
      expect(handOff).toMatchObject({ status: 'oauth_required', provider: 'calendar' });
      expect(text(result)).toContain(handOff.auth_url);
      expect(await carol.browser.complete(handOff.auth_url)).toMatchObject({ status: 200 });
      const status = await eventually(async () => {
        const res = await fetch(`${calendar.url}${handOff.status_url}`, {
          headers: { cookie: 'nat-session=carol' },
        });
        const body = (await res.json()) as { status: string; result?: unknown };
        if (body.status !== 'completed') throw new Error(`still ${body.status}`);
        return body;
      });
      expect(status.result).toBe('Hello carol');
    } finally {
      await carol.mcp.close();
    }
  }, 30_000);
});
