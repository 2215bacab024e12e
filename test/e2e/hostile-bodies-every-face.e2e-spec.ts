import { postJson } from '../utils/sse';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

/** What each field is replaced with, in turn: wrong types, sizes, characters, keys meant for prototypes. */
const HOSTILE_VALUES: unknown[] = [
  null,
  -1,
  '',
  'x'.repeat(100_000),
  [],
  {},
  true,
  [[[[[]]]]],
  '\u0000\ud800',
  { constructor: 'ACME' },
  { constructor: { prototype: { polluted: true } } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
];

/** Keys added beside each object's own: as data, never as what they name in JavaScript. */
const HOSTILE_KEYS = ['constructor', '__proto__', 'toString'];

/** The valid body with one change: every field replaced by each hostile value, removed, or joined by a hostile key. */
function variants(valid: unknown): unknown[] {
  const out: unknown[] = [];
  const at = (path: (string | number)[], change: (parent: Record<string, unknown>) => void) => {
    const copy = JSON.parse(JSON.stringify(valid)) as Record<string, unknown>;
    let parent = copy;
    for (const key of path) parent = parent[key] as Record<string, unknown>;
    change(parent);
    out.push(copy);
  };
  const walk = (value: unknown, path: (string | number)[]) => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      for (const hostile of HOSTILE_VALUES) at(path, (p) => define(p, key, hostile));
      at(path, (p) => delete p[key]);
      walk(child, [...path, key]);
    }
    if (!Array.isArray(value))
      for (const key of HOSTILE_KEYS) for (const hostile of [1, {}]) at(path, (p) => define(p, key, hostile));
  };
  walk(valid, []);
  return out;
}

const define = (target: object, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

const user = { role: 'user', content: 'hi' };
const FACES: [string, unknown][] = [
  ['/v1/workflow', { message: 'hi' }],
  ['/v1/workflow/stream', { message: 'hi' }],
  ['/v1/workflow/async', { message: 'hi', sync_timeout: 0 }],
  ['/v1/chat', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }],
  ['/v1/chat/completions', { model: 'm', messages: [user], stream: true }],
  ['/v1/ag-ui', { threadId: 't', runId: 'r', messages: [{ id: 'm', ...user }], tools: [], context: [] }],
  [
    '/v1/responses',
    { model: 'm', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] },
  ],
  [
    '/a2a',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }, { data: { a: 1 } }] } },
    },
  ],
];

describe('a hostile body on any face is refused or served, never a 5xx nor an internal error', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each(FACES)('%s', async (path, valid) => {
    const headers = { 'a2a-version': '1.0' };
    expect((await postJson(`${t.url}${path}`, JSON.stringify(valid), headers)).status).toBeLessThan(300);
    const refused: string[] = [];
    for (const body of variants(valid)) {
      const res = await postJson(`${t.url}${path}`, JSON.stringify(body), headers);
      // A2A answers every JSON-RPC error with 200 (an internal one is -32603); a stream, after its 200.
      if (res.status >= 500 || /"code":-32603|Internal Server Error/.test(res.text)) {
        refused.push(`${JSON.stringify(body).slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(refused).toEqual([]);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });
});

describe('a "constructor" key in a body does not turn its validation off', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each([1, 'x', { message: 'y' }])(
    'the input is still checked beside "constructor": %j',
    async (value) => {
      const res = await postJson(`${t.url}/v1/workflow`, { message: 123, constructor: value });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({ detail: [{ loc: ['body', 'message'], type: 'string_type' }] });
    },
  );
});
