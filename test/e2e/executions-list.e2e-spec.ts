import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const ASKS = scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hello {{name}}');
const ALICE = { cookie: 'nat-session=alice' };
const BOB = { authorization: 'Bearer nvapi-bob' };

interface Listed {
  data: {
    execution_id: string;
    status: string;
    prompt?: { text: string };
    response_url?: string;
    status_url: string;
  }[];
  next_cursor: string | null;
}

describe("GET /executions: the caller's executions waiting for a person (the approvals inbox)", () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ASKS)));
  afterAll(() => t.close());

  async function start(headers: Record<string, string>, input: string): Promise<string> {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: input }, headers);
    expect(res.status).toBe(202);
    return (res.json as { execution_id: string }).execution_id;
  }

  const list = async (headers: Record<string, string>, query = '') => {
    const res = await fetch(`${t.url}/executions${query}`, { headers });
    return { status: res.status, body: (await res.json()) as Listed & { detail?: string } };
  };

  it("lists only the caller's own, newest first, a page at a time, with the prompt and where to answer it", async () => {
    const first = await start(ALICE, 'one');
    const second = await start(ALICE, 'two');
    const third = await start(ALICE, 'three');
    const bobs = await start(BOB, 'bob');

    const page1 = await list(ALICE, '?status=interaction_required|oauth_required&limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((e) => e.execution_id)).toEqual([third, second]);
    expect(page1.body.data[0]).toMatchObject({
      status: 'interaction_required',
      prompt: { input_type: 'text', text: 'Name?' },
      status_url: `/executions/${third}`,
    });
    expect(page1.body.data[0].response_url).toMatch(
      new RegExp(`^/executions/${third}/interactions/[^/]+/response$`),
    );
    expect(page1.body.next_cursor).toEqual(expect.any(String));

    const page2 = await list(ALICE, `?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((e) => e.execution_id)).toEqual([first]);
    expect(page2.body.next_cursor).toBeNull();

    const forBob = await list(BOB);
    expect(forBob.body.data.map((e) => e.execution_id)).toEqual([bobs]);
  });

  it('an answered execution leaves the list; an anonymous caller has nothing listed', async () => {
    const id = await start({ cookie: 'nat-session=carol' }, 'x');
    const { body } = await list({ cookie: 'nat-session=carol' }, '?status=interaction_required');
    expect(body.data.map((e) => e.execution_id)).toEqual([id]);
    const answered = await postJson(
      `${t.url}${body.data[0].response_url}`,
      { response: { input_type: 'text', text: 'Carol' } },
      { cookie: 'nat-session=carol' },
    );
    expect(answered.status).toBe(204);
    expect((await list({ cookie: 'nat-session=carol' })).body.data).toEqual([]);
    await start({}, 'anonymous');
    expect(await list({})).toEqual({ status: 200, body: { data: [], next_cursor: null } });
  });

  it.each([
    ['an unknown status', '?status=completed', 'status must be interaction_required or oauth_required'],
    ['a limit out of range', '?limit=0', 'limit must be an integer from 1 to 100'],
    ['a limit that is no number', '?limit=ten', 'limit must be an integer from 1 to 100'],
    ['a cursor it never handed out', '?cursor=bm9wZQ', 'cursor is not one this server handed out'],
    [
      'a parameter given twice',
      '?status=oauth_required&status=interaction_required',
      'status must be given once',
    ],
  ])('%s is 400 with the reason', async (_what, query, detail) => {
    const res = await list(ALICE, query);
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(detail);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    expect(doc.paths['/executions']?.get?.parameters?.map((p) => p.name).sort()).toEqual([
      'cursor',
      'limit',
      'status',
    ]);
  });
});
