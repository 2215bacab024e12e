import { a2aClient, aSend, asTask, aUserMessage, datas, labelOf, stateOf, texts } from '../utils/a2a-client';
import { startCalendarApp, type CalendarApp } from '../utils/calendar-app';
import { OAuthBrowser } from '../utils/oauth-browser';
import { eventually } from '../utils/test-app';

const ALICE = { cookie: 'nat-session=alice' };

describe('A2A: an OAuth consent makes the task auth-required; it goes on by itself once consent is done', () => {
  let c: CalendarApp;
  beforeAll(async () => {
    c = await startCalendarApp();
  });
  afterAll(() => c.close());

  it('SendMessage returns at auth-required with the start link; after consent at the real authorization server the task completes', async () => {
    const client = await a2aClient(c.url, ALICE);
    const task = asTask(await client.sendMessage(aSend(aUserMessage('what is on my calendar?'))));
    expect(stateOf(task)).toBe('TASK_STATE_AUTH_REQUIRED');
    const message = task.status!.message!;
    const { auth_url: authUrl, provider } = datas(message.parts)[0] as { auth_url: string; provider: string };
    expect(provider).toBe('calendar');
    expect(authUrl).toMatch(new RegExp(`^${c.url}/auth/redirect/start\\?state=`));
    expect(texts(message.parts).join('')).toContain(authUrl);

    await OAuthBrowser.of(c.url, c.auth, 'alice', ALICE).complete(authUrl);

    const done = await eventually(async () => {
      const current = await client.getTask({ tenant: '', id: task.id });
      expect(stateOf(current)).toBe('TASK_STATE_COMPLETED');
      return current;
    });
    expect(texts(done.artifacts[0].parts).join('')).toBe('Hello alice');
  });

  it('a streamed task shows auth-required, then working and completed once consent is done', async () => {
    const bob = { cookie: 'nat-session=bob' };
    const client = await a2aClient(c.url, bob);
    const labels: string[] = [];
    for await (const update of client.sendMessageStream(aSend(aUserMessage('and mine?')))) {
      labels.push(labelOf(update));
      const p = update.payload!;
      if (p.$case === 'statusUpdate' && labelOf(update) === 'status:AUTH_REQUIRED') {
        const authUrl = (datas(p.value.status!.message!.parts)[0] as { auth_url: string }).auth_url;
        // The stream stays open while the person consents.
        await OAuthBrowser.of(c.url, c.auth, 'bob', bob).complete(authUrl);
      }
    }
    expect(labels.filter((l) => !l.startsWith('artifact:'))).toEqual([
      'task:SUBMITTED',
      'status:WORKING',
      'status:AUTH_REQUIRED',
      'status:WORKING',
      'status:COMPLETED',
    ]);
    expect(labels).toContain('artifact:Hello bob');
  });
});
