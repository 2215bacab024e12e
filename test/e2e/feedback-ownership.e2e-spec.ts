import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natUserId } from '../../src/core/identity/user-id';
import { postJson } from '../utils/sse';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };
const ROOT = { cookie: 'nat-session=root' };
const ANONYMOUS = {};
const ALICE_ID = natUserId('alice');
const BOB_ID = natUserId('bob');

const YAML = `general:\n  auth:\n    admin: ['${natUserId('root')}']\n${ECHO_YAML}`;

interface Item {
  observability_trace_id: string;
  reaction_type: string | null;
  comment: string | null;
  user_id: string | null;
}

/** Runs the workflow as `who` and returns the trace id the answer came back with. */
async function aTraceOf(t: TestApp, who: Record<string, string>): Promise<string> {
  const res = await postJson(`${t.url}/v1/workflow`, { message: 'hi' }, who);
  expect(res.status).toBe(200);
  return res.headers.get('observability-trace-id')!;
}

function send(t: TestApp, who: Record<string, string>, body: Record<string, unknown>) {
  return postJson(`${t.url}/feedback`, body, who);
}

async function list(t: TestApp, who: Record<string, string>, query: Record<string, string>) {
  const res = await fetch(`${t.url}/feedback?${new URLSearchParams(query).toString()}`, { headers: who });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Item[] }).items;
}

const authors = (items: Item[]) => items.map((i) => i.user_id).sort();

describe('feedback belongs to whoever owns the trace', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(YAML)));
  afterAll(() => t.close());

  it("another user or an anonymous caller cannot post on a user's trace (404); the owner and an admin can", async () => {
    const trace = await aTraceOf(t, ALICE);
    for (const who of [BOB, ANONYMOUS]) {
      const res = await send(t, who, { observability_trace_id: trace, reaction_type: '👎' });
      expect(res.status).toBe(404);
    }
    expect((await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍' })).status).toBe(200);
    expect((await send(t, ROOT, { observability_trace_id: trace, comment: 'seen' })).status).toBe(200);
    expect(authors(await list(t, ROOT, { observability_trace_id: trace }))).toEqual(
      [ALICE_ID, natUserId('root')].sort(),
    );
  });

  it("another user or an anonymous caller reads nothing of a user's trace; the owner reads theirs", async () => {
    const trace = await aTraceOf(t, ALICE);
    await send(t, ALICE, { observability_trace_id: trace, comment: 'private remark' });
    expect(await list(t, BOB, { observability_trace_id: trace })).toEqual([]);
    expect(await list(t, ANONYMOUS, { observability_trace_id: trace })).toEqual([]);
    expect(await list(t, ALICE, { observability_trace_id: trace })).toEqual([
      expect.objectContaining({ comment: 'private remark', user_id: ALICE_ID }),
    ]);
  });

  it('another user who runs a workflow under the same trace id (workflow-trace-id) does not take it over', async () => {
    const trace = await aTraceOf(t, ALICE);
    const reuse = await postJson(
      `${t.url}/v1/workflow`,
      { message: 'hi' },
      { ...BOB, 'workflow-trace-id': trace },
    );
    expect(reuse.headers.get('observability-trace-id')).toBe(trace);
    expect((await send(t, BOB, { observability_trace_id: trace, reaction_type: '👎' })).status).toBe(404);
    expect((await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍' })).status).toBe(200);
  });

  it('anonymous feedback on an anonymous trace works as in NeMo Agent Toolkit', async () => {
    const trace = await aTraceOf(t, ANONYMOUS);
    expect((await send(t, ANONYMOUS, { observability_trace_id: trace, reaction_type: '👍' })).status).toBe(
      200,
    );
    expect(await list(t, ANONYMOUS, { observability_trace_id: trace })).toEqual([
      expect.objectContaining({ reaction_type: '👍', user_id: null }),
    ]);
  });
});

describe('GET /feedback', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(YAML)));
  afterAll(() => t.close());

  it("shows callers their own feedback, never other users'", async () => {
    const trace = randomUUID();
    await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍' });
    await send(t, BOB, { observability_trace_id: trace, reaction_type: '👎' });
    await send(t, ANONYMOUS, { observability_trace_id: trace, comment: 'meh' });
    expect(authors(await list(t, ALICE, { observability_trace_id: trace }))).toEqual([ALICE_ID]);
    expect(authors(await list(t, BOB, { observability_trace_id: trace }))).toEqual([BOB_ID]);
    expect(authors(await list(t, ANONYMOUS, { observability_trace_id: trace }))).toEqual([null]);
    expect(authors(await list(t, BOB, { observability_trace_id: trace, user_id: ALICE_ID }))).toEqual([]);
  });

  it('shows an admin everyone’s feedback, filtered by user_id when asked', async () => {
    const trace = randomUUID();
    await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍' });
    await send(t, BOB, { observability_trace_id: trace, reaction_type: '👎' });
    expect(authors(await list(t, ROOT, { observability_trace_id: trace }))).toEqual(
      [ALICE_ID, BOB_ID].sort(),
    );
    expect(authors(await list(t, ROOT, { observability_trace_id: trace, user_id: BOB_ID }))).toEqual([
      BOB_ID,
    ]);
  });
});

describe('feedback limits', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(YAML)));
  afterAll(() => t.close());

  it.each([
    ['a reaction_type over 64 characters', 'reaction_type', { reaction_type: 'x'.repeat(65) }, 64],
    ['a 9 MB reaction_type', 'reaction_type', { reaction_type: 'x'.repeat(9_000_000) }, 64],
    [
      'a trace id over 128 characters',
      'observability_trace_id',
      { observability_trace_id: 'x'.repeat(129) },
      128,
    ],
  ])('%s is 422 and nothing is stored', async (_name, field, fields, max) => {
    const trace = randomUUID();
    const res = await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍', ...fields });
    expect(res.status).toBe(422);
    expect((res.json as { detail: unknown[] }).detail).toEqual([
      expect.objectContaining({ type: 'string_too_long', loc: ['body', field], ctx: { max_length: max } }),
    ]);
    expect(await list(t, ROOT, { observability_trace_id: trace })).toEqual([]);
  });

  it('a reaction of 64 characters (an emoji counts as one) is accepted', async () => {
    const trace = randomUUID();
    const res = await send(t, ALICE, { observability_trace_id: trace, reaction_type: '👍'.repeat(64) });
    expect(res.status).toBe(200);
  });
});

describe('/feedback with another method', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(YAML)));
  afterAll(() => t.close());

  it.each(['PUT', 'DELETE', 'PATCH'])('%s is 405 with Allow: GET, POST', async (method) => {
    const res = await fetch(`${t.url}/feedback`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
  });
});

describe('trace owners across a restart', () => {
  it('a trace run just before the server stops is still its owner’s after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-owners-'));
    const yaml = `general:\n  db_url: sqlite:${join(dir, 'owners.db')}\n${ECHO_YAML}`;
    try {
      const before = await startApp(yaml);
      let trace: string;
      try {
        trace = await aTraceOf(before, ALICE);
      } finally {
        await before.close();
      }
      const after = await startApp(yaml);
      try {
        expect((await send(after, BOB, { observability_trace_id: trace, reaction_type: '👎' })).status).toBe(
          404,
        );
        expect(
          (await send(after, ALICE, { observability_trace_id: trace, reaction_type: '👍' })).status,
        ).toBe(200);
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
