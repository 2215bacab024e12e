import { postgresSchema, sqliteFile, type Backend } from '../utils/db-backends';
import { requires } from '../utils/requires';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

const ALICE = { cookie: 'nat-session=alice-session' };
const BOB = { cookie: 'nat-session=bob-session' };
const yaml = (dbUrl: string, maxMib = 64) =>
  `general:\n  db_url: '${dbUrl}'\n  front_end:\n    ui: { conversations_max_mib: ${maxMib} }\n${ECHO_YAML}`;

async function call(t: TestApp, who: Record<string, string>, path: string, method = 'GET', body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

const titlesOf = (body: Record<string, unknown>) => (body.items as { title: string }[]).map((c) => c.title);

/** Two servers on one database, as two replicas: what one keeps, the other serves. */
function keepsConversations(makeBackend: () => Backend) {
  let backend: Backend;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    backend = makeBackend();
    a = await startApp(yaml(backend.dbUrl));
    b = await startApp(yaml(backend.dbUrl));
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await backend?.cleanup();
  });

  it('a conversation saved through one server is listed, read and searched through the other', async () => {
    const turns = [
      { question: 'Growth of 50% in Q3?', answer: 'Yes: REVENUE_GROWTH was 50%', promptIds: ['p-1'] },
    ];
    expect((await call(a, ALICE, '/conversations/c-1', 'PUT', { title: 'Sales', turns })).status).toBe(200);
    await call(a, ALICE, '/conversations/c-2', 'PUT', {
      title: 'Hiring',
      turns: [{ question: 'q', answer: 'a' }],
    });

    expect(titlesOf((await call(b, ALICE, '/conversations')).body)).toEqual(['Hiring', 'Sales']);
    const read = await call(b, ALICE, '/conversations/c-1');
    expect(read.body).toMatchObject({ id: 'c-1', title: 'Sales', turns });
    // Any case; % and _ are plain characters, not patterns.
    expect(titlesOf((await call(b, ALICE, '/conversations?q=revenue_growth')).body)).toEqual(['Sales']);
    expect(titlesOf((await call(b, ALICE, '/conversations?q=50%25')).body)).toEqual(['Sales']);
    expect(titlesOf((await call(b, ALICE, '/conversations?q=%25')).body)).toEqual(['Sales']);
    expect(titlesOf((await call(b, ALICE, '/conversations?q=_')).body)).toEqual(['Sales']);
    expect(titlesOf((await call(b, ALICE, '/conversations?interaction_id=p-1')).body)).toEqual(['Sales']);
    expect(titlesOf((await call(b, ALICE, '/conversations?interaction_id=p')).body)).toEqual([]);
  });

  it('a rename through one server is found by its new title through the other; a delete is gone there', async () => {
    expect((await call(b, ALICE, '/conversations/c-1', 'PATCH', { title: 'Quarterly sales' })).status).toBe(
      200,
    );
    expect(titlesOf((await call(a, ALICE, '/conversations?q=quarterly')).body)).toEqual(['Quarterly sales']);
    expect(titlesOf((await call(a, ALICE, '/conversations?q=revenue')).body)).toEqual(['Quarterly sales']);
    expect((await call(a, ALICE, '/conversations/c-2', 'DELETE')).status).toBe(204);
    expect(titlesOf((await call(b, ALICE, '/conversations')).body)).toEqual(['Quarterly sales']);
  });

  it('another person lists none and reaches none by id', async () => {
    expect(titlesOf((await call(b, BOB, '/conversations')).body)).toEqual([]);
    expect((await call(b, BOB, '/conversations/c-1')).status).toBe(404);
    expect((await call(b, BOB, '/conversations/c-1', 'PATCH', { title: 'mine' })).status).toBe(404);
    expect((await call(b, BOB, '/conversations/c-1', 'DELETE')).status).toBe(404);
    // Bob's own conversation of the same id is his, beside Alice's.
    expect((await call(b, BOB, '/conversations/c-1', 'PUT', { title: 'Bob', turns: [] })).status).toBe(200);
    expect((await call(a, ALICE, '/conversations/c-1')).body.title).toBe('Quarterly sales');
  });

  it('keeps at most 200 per person: the least recently updated go first', async () => {
    for (let i = 0; i < 201; i++) {
      await call(a, BOB, `/conversations/n-${i}`, 'PUT', { title: `n ${i}`, turns: [] });
    }
    const { body } = await call(b, BOB, '/conversations?limit=200');
    const titles = titlesOf(body);
    expect(titles).toHaveLength(200);
    // Saved within the same millisecond, two may tie: only the oldest by far is sure to be gone.
    expect(titles).toContain('n 200');
    expect(titles).not.toContain('Bob');
  }, 60_000);
}

describe('the page conversations, on a SQLite file', () => keepsConversations(sqliteFile));

describe('the page conversations, bounded for everyone together', () => {
  let backend: Backend;
  let t: TestApp;
  beforeAll(async () => {
    backend = sqliteFile();
    t = await startApp(yaml(backend.dbUrl, 1));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await backend?.cleanup();
  });

  it('callers inventing session cookies cannot make it hold more than conversations_max_mib', async () => {
    const alice = await call(t, ALICE, '/conversations/kept', 'PUT', { title: 'Alice', turns: [] });
    expect(alice.status).toBe(200);
    // Ten invented identities save 200 KiB each: 2 MiB against a bound of 1 MiB.
    const big = [{ question: 'q', answer: 'x'.repeat(200 * 1024) }];
    for (let i = 0; i < 10; i++) {
      const saved = await call(t, { cookie: `nat-session=invented-${i}` }, '/conversations/c', 'PUT', {
        title: `invented ${i}`,
        turns: big,
      });
      expect(saved.status).toBe(200);
    }
    const kept = [];
    for (let i = 0; i < 10; i++) {
      const list = await call(t, { cookie: `nat-session=invented-${i}` }, '/conversations');
      kept.push(titlesOf(list.body).length);
    }
    // The least recently updated went first (Alice's, then the first invented ones); the newest stay.
    expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
    expect(kept.slice(-4)).toEqual([1, 1, 1, 1]);
    expect(kept.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(titlesOf((await call(t, ALICE, '/conversations')).body)).toEqual([]);
  });
});
requires('postgres')('the page conversations, on PostgreSQL shared by two servers', () =>
  keepsConversations(() => postgresSchema(process.env.DATABASE_URL!)),
);
