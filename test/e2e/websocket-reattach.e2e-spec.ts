import { metricValue } from '../utils/metrics';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { reply, userMessage, WsClient, type WsMessage } from '../utils/ws-client';

const WORDS = 2000;
const CHUNK = 'lorem ipsum dolor sit amet ';
const STREAMED = CHUNK.repeat(WORDS / 5);

/** Asks, streams far more than a 16 KiB event log keeps, then asks again. */
const ASK_STREAM_ASK = scriptedYaml(
  `- prompt: { input_type: text, text: 'Go on?' }
- stream: { text: '${CHUNK}', repeat: ${WORDS / 5} }
- prompt: { input_type: text, text: 'Name?', save_as: name }
- stream: { text: 'bye {{name}}' }`,
  'done',
  'general:\n  max_event_log_bytes_per_execution: 16384',
);

const COOKIE = { cookie: 'nat-session=ann' };

/** The prompts the user's executions wait on (the approvals inbox, over HTTP). */
async function waitingPrompts(url: string): Promise<string[]> {
  const res = await fetch(`${url}/executions?status=interaction_required`, { headers: COOKIE });
  const body = (await res.json()) as { data: { prompt?: { text: string } }[] };
  return body.data.map((e) => e.prompt?.text ?? '');
}

describe('WebSocket gateway: a re-attacher that missed more than the event log keeps', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ASK_STREAM_ASK)));
  afterAll(() => t.close());

  it('is told how many events are gone, then gets the rest in order, and can still answer', async () => {
    const first = await WsClient.connect(t.url, { session: 'ann' });
    first.send(userMessage('x', { id: 'u1', conversation_id: 'conv-d' }));
    const goOn = await first.next();
    expect(goOn.content.text).toBe('Go on?');
    first.close();
    await first.closed;
    // The server has let the connection go: what follows is shown to nobody.
    await eventually(async () => expect(await metricValue(t.url, 'interlude_websocket_connections')).toBe(0));

    // Answered from another connection that does not take the run over.
    const other = await WsClient.connect(t.url, { session: 'ann' });
    other.send(reply('yes', { parent_id: goOn.id, conversation_id: null }));
    await eventually(async () => expect(await waitingPrompts(t.url)).toEqual(['Name?']), 10_000, 50);
    other.close();
    await other.closed;

    const again = await WsClient.connect(t.url, { session: 'ann', conversation_id: 'conv-d' });
    try {
      const shown = await again.until((m) => m.type === 'system_interaction_message');
      const [notice, ...rest] = shown;
      expect(notice).toMatchObject({
        type: 'system_intermediate_message',
        parent_id: 'u1',
        conversation_id: 'conv-d',
        intermediate_parent_id: 'default',
        status: 'in_progress',
        content: { name: 'Earlier events no longer available' },
      });
      const count = Number(
        /^(\d+) earlier events are no longer available$/.exec(notice.content.payload as string)?.[1],
      );
      expect(count).toBeGreaterThan(WORDS / 2);

      const asked = rest.pop()!;
      expect(asked).toMatchObject({ parent_id: 'u1', content: { text: 'Name?' } });
      // What the log still had: the latest words, whole, as streamed chunks.
      expect(rest.every((m: WsMessage) => m.type === 'system_response_message')).toBe(true);
      const tail = rest.map((m) => m.content.text).join('');
      expect(tail.length).toBeGreaterThan(0);
      expect(tail.length).toBeLessThan(STREAMED.length);
      expect(STREAMED.endsWith(tail)).toBe(true);

      again.send(reply('Ann', { parent_id: asked.id, conversation_id: 'conv-d' }));
      const end = await again.run();
      const texts = end.filter((m) => m.status === 'in_progress').map((m) => m.content.text);
      expect(texts.join('')).toBe('bye Anndone');
      expect(end.map((m) => m.type).slice(-2)).toEqual([
        'system_response_message',
        'observability_trace_message',
      ]);
    } finally {
      again.close();
    }
  });
});
