import { Executions } from '../utils/hitl';
import { openStream } from '../utils/live-sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const LONG_THEN_ASK = scriptedYaml(
  `- stream: { text: 'lorem ipsum dolor sit amet ', repeat: 2000 }
- prompt: { input_type: text, text: 'Name?', save_as: name }
- stream: { text: 'bye {{name}}' }`,
  'done',
  'general:\n  max_event_log_bytes_per_execution: 16384',
);

describe('bounded event logs and late re-attachers', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(LONG_THEN_ASK)));
  afterAll(() => t.close());

  it('a live stream gets every chunk; a late re-attacher is told how many earlier events are gone, and can still answer', async () => {
    const live = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'x' } });
    const asked = await live.next((f) => f.event === 'interaction_required', 10_000);
    const words = live.frames.filter((f) => f.event === undefined && f.data?.startsWith('{"value"'));
    expect(words).toHaveLength(10_000);
    const { execution_id: id, response_url } = JSON.parse(asked.data!) as {
      execution_id: string;
      response_url: string;
    };
    live.destroy();

    const late = await openStream(`${t.url}/executions/${id}/stream`);
    const dropped = await late.next((f) => f.event === 'events_dropped');
    const notice = JSON.parse(dropped.data!) as { count: number; message: string; execution_id: string };
    expect(notice.execution_id).toBe(id);
    expect(notice.count).toBeGreaterThan(1000);
    expect(notice.message).toBe(`${notice.count} earlier events are no longer available`);
    expect(dropped.id).toBeGreaterThan(0);
    await late.next((f) => f.event === 'interaction_required');
    expect((await new Executions(t.url).answer(response_url, { type: 'text', text: 'Ann' })).status).toBe(
      204,
    );
    await late.end(5000);
    expect(late.text).toContain('data: {"value":"Ann"}');
    expect(late.text.length).toBeLessThan(60_000);
  });
});
