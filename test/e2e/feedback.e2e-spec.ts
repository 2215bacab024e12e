import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import BetterSqlite3 from 'better-sqlite3';
import { natUserId } from '../../src/core/identity/user-id';
import { postgresSchema, sqliteFile, type Backend } from '../utils/db-backends';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { configFrom, ECHO_YAML, eventually, startApp, type TestApp } from '../utils/test-app';

const ALICE = { cookie: 'nat-session=alice' };
const ALICE_ID = '7b031fd4-714b-598e-b755-a517d069edc5';
// Callers list only their own feedback; an admin lists everyone's.
const ROOT = { cookie: 'nat-session=root' };
const ADMIN = `  auth:\n    admin: ['${natUserId('root')}']\n`;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const aTraceId = () => randomUUID();
const withDb = (dbUrl: string, general = '') => `general:\n  db_url: '${dbUrl}'\n${general}${ECHO_YAML}`;

function sendFeedback(t: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return postJson(`${t.url}/feedback`, body, headers);
}

async function listFeedback(t: TestApp, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/feedback${query}`, { headers });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function itemsFor(
  t: TestApp,
  traceId: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const res = await listFeedback(t, `?observability_trace_id=${encodeURIComponent(traceId)}`, headers);
  expect(res.status).toBe(200);
  return res.json.items as Record<string, unknown>[];
}

describe('POST /feedback', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it("answers as NeMo Agent Toolkit does: Added reaction '👍' to call <id>", async () => {
    const res = await sendFeedback(t, {
      observability_trace_id: '01933b2e-1234-5678-9abc-def012345678',
      reaction_type: '👍',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: "Added reaction '👍' to call 01933b2e-1234-5678-9abc-def012345678" });
  });

  it('a comment alone is "Added comment to call <id>"; both together name both', async () => {
    const id = aTraceId();
    const comment = await sendFeedback(t, { observability_trace_id: id, comment: 'Spot on' });
    expect(comment.json).toEqual({ message: `Added comment to call ${id}` });
    const both = await sendFeedback(t, {
      observability_trace_id: id,
      reaction_type: '👎',
      comment: 'Too long',
    });
    expect(both.json).toEqual({ message: `Added reaction '👎' and comment to call ${id}` });
  });

  it('feedback on a trace this server never saw is accepted and listed', async () => {
    const id = `unknown-${aTraceId()}`;
    expect((await sendFeedback(t, { observability_trace_id: id, reaction_type: '👍' })).status).toBe(200);
    expect(await itemsFor(t, id)).toHaveLength(1);
  });

  // Bodies and queries refused before the service: src/feedback/feedback.controller.spec.ts (slim app).
  it('a comment may have 1024 characters (counted as a reader would), not 1025', async () => {
    const id = aTraceId();
    const fits = await sendFeedback(t, { observability_trace_id: id, comment: '😀'.repeat(1024) });
    expect(fits.status).toBe(200);
    const tooLong = await sendFeedback(t, { observability_trace_id: id, comment: 'x'.repeat(1025) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.json.detail).toEqual([
      expect.objectContaining({
        type: 'string_too_long',
        loc: ['body', 'comment'],
        msg: 'String should have at most 1024 characters',
        ctx: { max_length: 1024 },
      }),
    ]);
    expect(await itemsFor(t, id)).toHaveLength(1);
  });
});

describe('GET /feedback', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('a trace nobody gave feedback on has no items', async () => {
    expect(await itemsFor(t, aTraceId())).toEqual([]);
  });
});

function keepsFeedback(makeBackend: () => Backend) {
  let backend: Backend;
  let t: TestApp;
  beforeAll(async () => {
    backend = makeBackend();
    t = await startApp(withDb(backend.dbUrl, ADMIN));
  });
  afterAll(async () => {
    await t?.close();
    await backend?.cleanup();
  });

  it("is stored with the sender's user id (null when anonymous) and listed oldest first", async () => {
    const id = aTraceId();
    await sendFeedback(t, { observability_trace_id: id, reaction_type: '👍' }, ALICE);
    await sendFeedback(t, { observability_trace_id: id, comment: 'Could be shorter' });
    await sendFeedback(t, { observability_trace_id: aTraceId(), reaction_type: '👎' }, ALICE);

    const items = await itemsFor(t, id, ROOT);
    expect(items).toEqual([
      {
        observability_trace_id: id,
        reaction_type: '👍',
        comment: null,
        user_id: ALICE_ID,
        created_at: expect.stringMatching(ISO),
      },
      {
        observability_trace_id: id,
        reaction_type: null,
        comment: 'Could be shorter',
        user_id: null,
        created_at: expect.stringMatching(ISO),
      },
    ]);
    expect(Date.parse(items[0].created_at as string)).toBeLessThanOrEqual(
      Date.parse(items[1].created_at as string),
    );
    expect(Math.abs(Date.now() - Date.parse(items[1].created_at as string))).toBeLessThan(60_000);
  });

  it('survives a restart of the server', async () => {
    const id = aTraceId();
    await sendFeedback(t, { observability_trace_id: id, reaction_type: '🎉', comment: 'Kept' }, ALICE);
    await t.close();
    t = await startApp(withDb(backend.dbUrl, ADMIN));
    expect(await itemsFor(t, id, ALICE)).toEqual([
      expect.objectContaining({ reaction_type: '🎉', comment: 'Kept' }),
    ]);
  });
}

describe('feedback kept in a SQLite file', () => keepsFeedback(sqliteFile));
requires('postgres')('feedback kept in PostgreSQL', () =>
  keepsFeedback(() => postgresSchema(process.env.DATABASE_URL!)),
);

describe('the SQLite file', () => {
  it('is in WAL mode and created with its folder', async () => {
    const backend = sqliteFile();
    const t = await startApp(withDb(backend.dbUrl));
    await sendFeedback(t, { observability_trace_id: aTraceId(), reaction_type: '👍' });
    await t.close();
    const db = new BetterSqlite3(backend.dbUrl.slice('sqlite:'.length), { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
      await backend.cleanup();
    }
  });
});

describe('general.db_url', () => {
  const yaml = `general:\n  db_url: \${DATABASE_URL:-sqlite:./data/interlude.db}\n${ECHO_YAML}`;

  it('decides alone; DATABASE_URL counts only where the file names it', () => {
    expect(configFrom(ECHO_YAML, { DATABASE_URL: 'postgres://db/x' }).settings.general.db_url).toBe(
      'sqlite::memory:',
    );
    expect(configFrom(yaml, { DATABASE_URL: 'postgres://db/x' }).settings.general.db_url).toBe(
      'postgres://db/x',
    );
    expect(configFrom(yaml, {}).settings.general.db_url).toBe('sqlite:./data/interlude.db');
  });

  it('an unknown kind of database stops start-up, naming the forms accepted', () => {
    expect(() => configFrom(`general:\n  db_url: mysql://db/x\n${ECHO_YAML}`)).toThrow(
      /general\.db_url: db_url must be one of sqlite:<file>, sqlite::memory: or postgres:/,
    );
  });
});

/** A local HTTP server standing in for the webhook's receiver. */
async function aReceiver(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const received: { headers: http.IncomingHttpHeaders; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const webhookYaml = (url: string, outbound = '  outbound: { allow_hosts: [127.0.0.1] }\n') =>
  withDb(
    'sqlite::memory:',
    outbound +
      `  feedback:\n    webhook_url: ${url}\n` +
      `    webhook_headers: { authorization: 'Bearer hook-secret' }\n    webhook_timeout_seconds: 1\n`,
  );

describe('feedback webhook', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn')));
  afterEach(() => warn.mockRestore());

  it('is off when webhook_url is null or expands to nothing; a URL that is not http(s) stops start-up', () => {
    const general = (value: string) => `general:\n  feedback:\n    webhook_url: ${value}\n${ECHO_YAML}`;
    expect(() => configFrom(general('null'))).not.toThrow();
    expect(configFrom(general('${FEEDBACK_WEBHOOK_URL:-}'), {}).settings.general.feedback.webhook_url).toBe(
      '',
    );
    expect(() => configFrom(general('ftp://example.com/hook'))).toThrow(
      /webhook_url must be an http\(s\) URL/,
    );
  });

  it('a receiver on a loopback address that general.outbound.allow_hosts does not list is never called', async () => {
    const receiver = await aReceiver((_req, res) => res.writeHead(204).end());
    const t = await startApp(webhookYaml(receiver.url, ''));
    try {
      const id = aTraceId();
      await sendFeedback(t, { observability_trace_id: id, reaction_type: '👍' }, ALICE);
      await eventually(() =>
        expect(warn).toHaveBeenCalledWith(expect.stringContaining('requests to 127.0.0.1 are refused')),
      );
      expect(receiver.received).toEqual([]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('each feedback is POSTed as JSON, with the configured headers', async () => {
    const receiver = await aReceiver((_req, res) => res.writeHead(204).end());
    const t = await startApp(webhookYaml(receiver.url));
    try {
      const id = aTraceId();
      await sendFeedback(t, { observability_trace_id: id, reaction_type: '👍', comment: 'Nice' }, ALICE);
      const [call] = await eventually(() => {
        expect(receiver.received).toHaveLength(1);
        return receiver.received;
      });
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers.authorization).toBe('Bearer hook-secret');
      expect(call.body).toEqual({
        observability_trace_id: id,
        reaction_type: '👍',
        comment: 'Nice',
        user_id: ALICE_ID,
        created_at: expect.stringMatching(ISO),
      });
      expect(call.body).toEqual((await itemsFor(t, id, ALICE))[0]);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('a receiver that fails is logged; the feedback is still accepted and stored', async () => {
    const receiver = await aReceiver((_req, res) => res.writeHead(500).end('boom'));
    const t = await startApp(webhookYaml(receiver.url));
    try {
      const id = aTraceId();
      expect((await sendFeedback(t, { observability_trace_id: id, reaction_type: '👍' })).status).toBe(200);
      await eventually(() =>
        expect(warn).toHaveBeenCalledWith(expect.stringContaining(`answered 500 for trace ${id}`)),
      );
      expect(await itemsFor(t, id)).toHaveLength(1);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('a receiver that never answers does not hold the request up, and times out', async () => {
    const receiver = await aReceiver(() => undefined);
    const t = await startApp(webhookYaml(receiver.url));
    try {
      const res = await sendFeedback(t, { observability_trace_id: aTraceId(), reaction_type: '👍' });
      expect(res.status).toBe(200);
      // answered while the webhook still waited: its time limit (1 s) had not run out yet
      expect(warn).not.toHaveBeenCalledWith(expect.stringContaining('no answer within 1 s'));
      await eventually(
        () => expect(warn).toHaveBeenCalledWith(expect.stringContaining('no answer within 1 s')),
        4000,
      );
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('an unreachable receiver is logged; the feedback is still accepted', async () => {
    const receiver = await aReceiver((_req, res) => res.end());
    await receiver.close();
    const t = await startApp(webhookYaml(receiver.url));
    try {
      const id = aTraceId();
      expect((await sendFeedback(t, { observability_trace_id: id, comment: 'hello?' })).status).toBe(200);
      await eventually(() =>
        expect(warn).toHaveBeenCalledWith(expect.stringContaining(`webhook failed for trace ${id}`)),
      );
    } finally {
      await t.close();
    }
  });
});
