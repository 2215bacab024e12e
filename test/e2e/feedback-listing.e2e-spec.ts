import { randomUUID } from 'node:crypto';
import { natUserId } from '../../src/core/identity/user-id';
import { postgresSchema, sqliteFile, type Backend } from '../utils/db-backends';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

/** `GET /feedback` without a trace id: the caller's own feedback, newest first, a page at a time. */

const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };
const ROOT = { cookie: 'nat-session=root' };
const ANONYMOUS = {};
const ALICE_ID = natUserId('alice');
const BOB_ID = natUserId('bob');

interface Item {
  observability_trace_id: string;
  reaction_type: string | null;
  comment: string | null;
  user_id: string | null;
  created_at: string;
}
interface Page {
  items: Item[];
  next_cursor?: string | null;
}

const yaml = (dbUrl: string) =>
  `general:\n  db_url: '${dbUrl}'\n  auth:\n    admin: ['${natUserId('root')}']\n${ECHO_YAML}`;

async function send(t: TestApp, who: Record<string, string>, comment: string, trace = randomUUID()) {
  const res = await postJson(`${t.url}/feedback`, { observability_trace_id: trace, comment }, who);
  expect(res.status).toBe(200);
}

async function get(t: TestApp, who: Record<string, string>, query: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/feedback?${new URLSearchParams(query).toString()}`, { headers: who });
  return { status: res.status, body: (await res.json()) as Page & { detail?: unknown } };
}

/** Every page, following next_cursor, as the comments in order. */
async function allPages(t: TestApp, who: Record<string, string>, query: Record<string, string> = {}) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const { status, body } = await get(t, who, { ...query, ...(cursor ? { cursor } : {}) });
    expect(status).toBe(200);
    pages.push(body.items.map((i) => i.comment!));
    cursor = body.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

function listsOwnFeedback(makeBackend: () => Backend) {
  let backend: Backend;
  let t: TestApp;
  beforeAll(async () => {
    backend = makeBackend();
    t = await startApp(yaml(backend.dbUrl));
    for (let i = 1; i <= 5; i++) await send(t, ALICE, `alice ${i}`);
    await send(t, BOB, 'bob 1');
    await send(t, ANONYMOUS, 'anonymous 1');
  });
  afterAll(async () => {
    await t?.close();
    await backend?.cleanup();
  });

  it("lists the caller's own feedback on every trace, newest first, with next_cursor", async () => {
    const { status, body } = await get(t, ALICE);
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    expect(body.items.map((i) => i.comment)).toEqual(['alice 5', 'alice 4', 'alice 3', 'alice 2', 'alice 1']);
    expect(body.items[0]).toEqual({
      observability_trace_id: expect.any(String),
      reaction_type: null,
      comment: 'alice 5',
      user_id: ALICE_ID,
      created_at: expect.stringMatching(/Z$/),
    });
    expect((await get(t, BOB)).body.items.map((i) => i.comment)).toEqual(['bob 1']);
  });

  it('pages by limit and cursor: every item once, in order, and the last page says so', async () => {
    expect(await allPages(t, ALICE, { limit: '2' })).toEqual([
      ['alice 5', 'alice 4'],
      ['alice 3', 'alice 2'],
      ['alice 1'],
    ]);
    // A page that ends exactly at the last item has no next one.
    expect((await get(t, ALICE, { limit: '5' })).body.next_cursor).toBeNull();
  });

  it("shows an admin everyone's, each with its user_id, narrowed by user_id when asked", async () => {
    const { body } = await get(t, ROOT);
    expect(body.items.map((i) => [i.comment, i.user_id])).toEqual([
      ['anonymous 1', null],
      ['bob 1', BOB_ID],
      ...[5, 4, 3, 2, 1].map((n) => [`alice ${n}`, ALICE_ID]),
    ]);
    expect(await allPages(t, ROOT, { user_id: BOB_ID, limit: '1' })).toEqual([['bob 1']]);
  });

  it("never shows a user another's: user_id naming someone else lists nothing", async () => {
    expect(await get(t, BOB, { user_id: ALICE_ID })).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
  });

  it("lists nothing to an anonymous caller: anonymous feedback has no sender, so it would be everyone's", async () => {
    expect(await get(t, ANONYMOUS)).toEqual({ status: 200, body: { items: [], next_cursor: null } });
  });
}

describe('GET /feedback without a trace id, on SQLite', () => listsOwnFeedback(sqliteFile));
requires('postgres')('GET /feedback without a trace id, on PostgreSQL', () =>
  listsOwnFeedback(() => postgresSchema(process.env.DATABASE_URL!)),
);

describe('GET /feedback: the per-trace listing is unchanged, and paging parameters are checked', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(yaml('sqlite::memory:'))));
  afterAll(() => t.close());

  it('with observability_trace_id it still lists that trace whole, oldest first, without next_cursor', async () => {
    const trace = randomUUID();
    await send(t, ALICE, 'first', trace);
    await send(t, ALICE, 'second', trace);
    const { status, body } = await get(t, ALICE, { observability_trace_id: trace });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items.map((i) => i.comment)).toEqual(['first', 'second']);
  });

  it.each([
    ['limit 0', { limit: '0' }, 'limit', 'greater_than_equal'],
    ['limit 101', { limit: '101' }, 'limit', 'less_than_equal'],
    ['a limit that is not a number', { limit: 'ten' }, 'limit', 'int_parsing'],
    ['a cursor this server did not hand out', { cursor: 'bm90LWEtY3Vyc29y' }, 'cursor', 'value_error'],
    ['limit with a trace id', { observability_trace_id: 'x', limit: '5' }, 'limit', 'value_error'],
  ])('%s is 422, in FastAPI shape', async (_name, query, field, type) => {
    const { status, body } = await get(t, ALICE, query);
    expect(status).toBe(422);
    expect(body.detail).toEqual([expect.objectContaining({ type, loc: ['query', field] })]);
  });

  it('is documented in the OpenAPI document: optional trace id, limit, cursor, next_cursor', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; required: boolean; schema: object }[] } }>;
      components: { schemas: Record<string, { properties: Record<string, object> }> };
    };
    const params = Object.fromEntries(doc.paths['/feedback'].get.parameters.map((p) => [p.name, p]));
    expect(params.observability_trace_id.required).toBe(false);
    expect(params.limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100 });
    expect(params.cursor.required).toBe(false);
    expect(doc.components.schemas.FeedbackListDto.properties.next_cursor).toMatchObject({ nullable: true });
  });
});
