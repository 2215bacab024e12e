import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const ASKS = scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hello {{name}}');
const ALICE = { cookie: 'nat-session=alice' };
const BOB = { authorization: 'Bearer nvapi-bob' };

interface Paused {
  execution_id: string;
  status_url: string;
  response_url: string;
}

describe('each user sees only their own executions', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ASKS)));
  afterAll(() => t.close());

  async function pausedFor(headers: Record<string, string>): Promise<Paused> {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers);
    expect(res.status).toBe(202);
    return res.json as unknown as Paused;
  }

  function as(headers: Record<string, string>, p: Paused) {
    const json = { 'content-type': 'application/json' };
    const answer = JSON.stringify({ response: { type: 'text', text: 'Mallory' } });
    return {
      status: () => fetch(`${t.url}${p.status_url}`, { headers }),
      stream: () => fetch(`${t.url}${p.status_url}/stream`, { headers }),
      answer: () =>
        fetch(`${t.url}${p.response_url}`, {
          method: 'POST',
          headers: { ...headers, ...json },
          body: answer,
        }),
      cancel: () => fetch(`${t.url}${p.status_url}`, { method: 'DELETE', headers }),
    };
  }

  it.each([
    ['another user', BOB],
    ['an anonymous caller', {}],
  ])('%s gets 404 on every route of alice’s execution, and changes nothing', async (_who, headers) => {
    const p = await pausedFor(ALICE);
    const other = as(headers, p);
    for (const [route, call] of Object.entries(other)) {
      const res = await call();
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
      expect(await res.json()).toEqual({ detail: `Execution ${p.execution_id} not found` });
    }
    // alice's execution is untouched: still waiting, and she can answer it
    const mine = as(ALICE, p);
    expect(await (await mine.status()).json()).toMatchObject({ status: 'interaction_required' });
    expect((await mine.answer()).status).toBe(204);
    const done = await (await mine.status()).json();
    expect(done).toMatchObject({ status: 'completed', result: { value: 'Hello Mallory' } });
  });

  it('the owner can cancel; the execution stays hidden from others afterwards', async () => {
    const p = await pausedFor(BOB);
    expect((await as(ALICE, p).status()).status).toBe(404);
    expect((await as(BOB, p).cancel()).status).toBe(204);
    expect(await (await as(BOB, p).status()).json()).toMatchObject({
      status: 'failed',
      error: 'Execution cancelled',
    });
    expect((await as(ALICE, p).status()).status).toBe(404);
  });

  it('an anonymous execution is reachable by its unguessable id alone', async () => {
    const p = await pausedFor({});
    expect((await as(BOB, p).status()).status).toBe(200);
    expect((await as({}, p).answer()).status).toBe(204);
  });
});

describe('waiting limits per user', () => {
  it('past max_waiting_executions_per_user a user gets 429 with Retry-After; others are not held back', async () => {
    const t = await startApp(
      ASKS.replace('workflow:', 'general:\n  max_waiting_executions_per_user: 1\nworkflow:'),
    );
    try {
      const first = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, ALICE);
      expect(first.status).toBe(202);
      const second = await postJson(`${t.url}/v1/workflow`, { input_message: 'y' }, ALICE);
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('30');
      expect(String(second.json.detail)).toMatch(/1 executions waiting/);
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'z' }, BOB)).status).toBe(202);
      // answering frees the place
      const response = (first.json as unknown as Paused).response_url;
      const answered = await fetch(`${t.url}${response}`, {
        method: 'POST',
        headers: { ...ALICE, 'content-type': 'application/json' },
        body: JSON.stringify({ response: { type: 'text', text: 'Ann' } }),
      });
      expect(answered.status).toBe(204);
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'w' }, ALICE)).status).toBe(202);
    } finally {
      await t.close();
    }
  });
});
