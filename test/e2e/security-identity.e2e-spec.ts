import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { natUserId } from '../../src/core/identity/user-id';
import { hashPassword } from '../../src/core/identity/configured-credentials';
import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';
import { connectClosingAfterEach, reply, userMessage, WsClient } from '../utils/ws-client';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ISSUER = 'https://id.example.com';
const ADMIN = natUserId('admin-1');
// `audience` and `issuer` as plain strings, as corporate configs write them (issue 11).
const VERIFIED_AUTH = `  auth:
    jwt: { secret: '${SECRET}', issuer: '${ISSUER}', audience: interlude }
    require_identity: true
    admin: ['${ADMIN}']
`;
const ASKS = `- prompt: { input_type: text, text: 'Name?', save_as: name }`;

const jwt = (sub: string) =>
  new SignJWT({ aud: 'interlude', iss: ISSUER })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
const bearer = async (sub: string) => ({ authorization: `Bearer ${await jwt(sub)}` });
const basicOf = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

/** Every way a caller could claim to be admin-1 without a credential the server checked. */
const CLAIMS: [string, Record<string, string>][] = [
  ['Cookie: nat-session=admin-1', { cookie: 'nat-session=admin-1' }],
  ['Cookie: nemo-agent-toolkit-session=admin-1', { cookie: 'nemo-agent-toolkit-session=admin-1' }],
  ['Authorization: Bearer admin-1 (not a JWT)', { authorization: 'Bearer admin-1' }],
  ['X-API-Key: admin-1', { 'x-api-key': 'admin-1' }],
  ['Authorization: Basic admin-1', { authorization: 'Basic admin-1' }],
  ['Authorization: Basic admin-1:pw (encoded)', { authorization: basicOf('admin-1:pw') }],
];

const users = (t: TestApp, headers: Record<string, string>) =>
  fetch(`${t.url}/monitor/users`, { headers }).then((r) => r.status);

describe('verified identity (a JWT secret): a credential nobody checked names no user', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();
  beforeAll(
    async () =>
      (t = await startApp(
        scriptedYaml(
          ASKS,
          'Hello {{name}}',
          `general:\n  enable_per_user_monitoring: true\n${VERIFIED_AUTH}`,
        ),
      )),
  );
  afterAll(() => t.close());

  it('the JWT of admin-1 reads /monitor/users; another verified user gets 403', async () => {
    expect(await users(t, await bearer('admin-1'))).toBe(200);
    expect(await users(t, await bearer('user-b'))).toBe(403);
  });

  it.each(CLAIMS)('HTTP: %s does not make the caller admin-1 (401)', async (_name, headers) => {
    expect(await users(t, headers)).toBe(401);
  });

  it('HTTP: a cookie beside a valid JWT for user-b does not win over the JWT', async () => {
    expect(await users(t, { cookie: 'nat-session=admin-1', ...(await bearer('user-b')) })).toBe(403);
  });

  it('HTTP: a broken or invalid JWT is 401 even with a cookie beside it', async () => {
    for (const token of [
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLWIifQ.broken',
      await jwt('x').then((j) => j + 'x'),
    ]) {
      const res = await postJson(
        `${t.url}/v1/workflow`,
        { input_message: 'x' },
        {
          cookie: 'nat-session=user-b',
          authorization: `Bearer ${token}`,
        },
      );
      expect(res.status).toBe(401);
    }
  });

  it('HTTP: "Bearer user-b" cannot answer user-b’s prompt, and user-b still can', async () => {
    const owner = await bearer('user-b');
    const paused = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, owner);
    expect(paused.status).toBe(202);
    const { response_url, status_url } = paused.json as { response_url: string; status_url: string };
    const answer = (headers: Record<string, string>, text = 'Mallory') =>
      fetch(`${t.url}${response_url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ response: { type: 'text', text } }),
      }).then((r) => r.status);
    const claims: Record<string, string>[] = [
      { authorization: 'Bearer user-b' },
      { cookie: 'nat-session=user-b' },
    ];
    for (const claim of claims) {
      expect(await answer(claim)).toBe(401);
    }
    expect(await answer(owner, 'Bea')).toBe(204);
    const done = await (await fetch(`${t.url}${status_url}`, { headers: owner })).json();
    expect(done).toMatchObject({
      status: 'completed',
      result: { value: 'Hello Bea' },
    });
  });

  const refusedOnSocket = async (ws: WsClient) => {
    ws.send(userMessage('hi', { id: 'm1' }));
    expect(await ws.next()).toMatchObject({
      type: 'error_message',
      parent_id: 'm1',
      content: { message: 'Authentication required' },
    });
  };

  it.each([
    ['?session=admin-1', { session: 'admin-1' }, {}],
    ['a nat-session cookie', {}, { cookie: 'nat-session=admin-1' }],
    ['Authorization: Bearer admin-1', {}, { authorization: 'Bearer admin-1' }],
    ['X-API-Key: admin-1', {}, { 'x-api-key': 'admin-1' }],
    ['Authorization: Basic admin-1', {}, { authorization: 'Basic admin-1' }],
  ])('socket: a handshake with %s is anonymous, so it cannot run', async (_name, query, headers) => {
    await refusedOnSocket(await connect(t.url, query, { headers }));
  });

  it('socket: ?session=user-b with no credential does not take over user-b’s run; user-b does', async () => {
    const owner = await connect(t.url, { conversation_id: 'c1' }, { headers: await bearer('user-b') });
    owner.send(userMessage('x', { id: 'u1', conversation_id: 'c1' }));
    const prompt = await owner.next();
    expect(prompt).toMatchObject({ type: 'system_interaction_message', content: { text: 'Name?' } });
    owner.close();
    await owner.closed;

    const intruder = await connect(t.url, { session: 'user-b', conversation_id: 'c1' });
    intruder.send(reply('Mallory', { parent_id: prompt.id, conversation_id: 'c1' }));
    intruder.send(userMessage('hi', { id: 'm1', conversation_id: 'c1' }));
    const seen = await intruder.until((m) => m.parent_id === 'm1');
    expect(seen.some((m) => m.type === 'system_interaction_message')).toBe(false);
    expect(seen[seen.length - 1]).toMatchObject({
      type: 'error_message',
      content: { message: 'Authentication required' },
    });

    const back = await connect(t.url, { conversation_id: 'c1' }, { headers: await bearer('user-b') });
    expect(await back.next()).toMatchObject({ type: 'system_interaction_message', id: prompt.id });
    back.send(reply('Bea', { parent_id: prompt.id, conversation_id: 'c1' }));
    const run = await back.run();
    expect(run.find((m) => m.status === 'in_progress')?.content.text).toBe('Hello Bea');
  });

  it('socket: a cookie beside a valid JWT for user-b acts as user-b (user-b takes its run over)', async () => {
    const mixed = await connect(
      t.url,
      { conversation_id: 'c2' },
      { headers: { cookie: 'nat-session=admin-1', ...(await bearer('user-b')) } },
    );
    mixed.send(userMessage('x', { conversation_id: 'c2' }));
    const prompt = await mixed.next();
    mixed.close();
    await mixed.closed;
    const owner = await connect(t.url, { conversation_id: 'c2' }, { headers: await bearer('user-b') });
    expect(await owner.next()).toMatchObject({ type: 'system_interaction_message', id: prompt.id });
  });

  it('socket: auth_message follows the same rules as the headers', async () => {
    const ws = await connect(t.url);
    ws.send({ type: 'auth_message', id: 'a1', payload: { method: 'api_key', token: 'admin-1' } });
    expect(await ws.next()).toMatchObject({ parent_id: 'a1', status: 'error', user_id: null });
    ws.send({
      type: 'auth_message',
      id: 'a2',
      payload: { method: 'basic', username: 'admin-1', password: 'x' },
    });
    expect(await ws.next()).toMatchObject({ parent_id: 'a2', status: 'error', user_id: null });
    await refusedOnSocket(ws);
    ws.send({ type: 'auth_message', id: 'a3', payload: { method: 'jwt', token: await jwt('admin-1') } });
    expect(await ws.next()).toMatchObject({ parent_id: 'a3', status: 'success', user_id: ADMIN });
  });
});

describe('verified identity: an unverified source the operator lists lives in a namespace of its own', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();
  beforeAll(
    async () =>
      (t = await startApp(
        `general:\n  auth:\n    jwt: { secret: '${SECRET}' }\n    sources: [jwt, cookie, api_key]\nworkflow: { _type: whoami }\n`,
        whoamiRegistry(),
      )),
  );
  afterAll(() => t.close());

  const who = async (headers: Record<string, string>) =>
    (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers)).json.identity as {
      userId: string;
    };

  it('HTTP: cookie and key values never produce a JWT subject’s id', async () => {
    const byJwt = await who({ authorization: `Bearer ${await jwt('admin-1')}` });
    expect(byJwt.userId).toBe(ADMIN);
    const byCookie = await who({ cookie: 'nat-session=admin-1' });
    const byKey = await who({ 'x-api-key': 'admin-1' });
    expect(byCookie).toMatchObject({ source: 'cookie', userId: expect.any(String) });
    expect(new Set([byJwt.userId, byCookie.userId, byKey.userId]).size).toBe(3);
    expect((await who({ cookie: 'nat-session=admin-1' })).userId).toBe(byCookie.userId);
  });

  it('socket: ?session= is that same session cookie, never the JWT subject', async () => {
    const ws = await connect(t.url, { session: 'admin-1' });
    ws.send(userMessage('who?', { schema_type: 'generate' }));
    const text = (await ws.run()).find((m) => m.status === 'in_progress')?.content.text as string;
    const identity = (JSON.parse(text) as { identity: { userId: string } }).identity;
    expect(identity.userId).toBe((await who({ cookie: 'nat-session=admin-1' })).userId);
    expect(identity.userId).not.toBe(ADMIN);
  });
});

describe('verified identity: configured API keys and Basic users', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();
  const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- step: { name: s, kind: tool, payload: 1 }`,
        'done',
        `general:
  enable_per_user_monitoring: true
  auth:
    require_identity: true
    admin: ['role:operator']
    api_keys:
      - { hash: 'sha256:${sha256('ci-key-1')}', user_id: ci-bot, roles: [operator] }
    basic_users:
      - { username: ann, password_hash: '${await hashPassword('ann pw')}' }
`,
      ),
    );
  });
  afterAll(() => t.close());

  it('HTTP: a listed key identifies its user with its roles; any other key is 401, never a user', async () => {
    expect(await users(t, { 'x-api-key': 'ci-key-1' })).toBe(200);
    expect(await users(t, { authorization: 'Bearer ci-key-1' })).toBe(200);
    const other = await fetch(`${t.url}/monitor/users`, { headers: { 'x-api-key': 'admin-1' } });
    expect(other.status).toBe(401);
    expect(((await other.json()) as { detail: string }).detail).toBe('The API key is not accepted');
  });

  it('HTTP: Basic is checked against the configured users', async () => {
    expect(await users(t, { authorization: basicOf('ann:ann pw') })).toBe(403);
    expect(await users(t, { authorization: basicOf('ann:guess') })).toBe(401);
    expect(await users(t, { authorization: basicOf('ci-bot:ann pw') })).toBe(401);
    const ran = await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'x' },
      { authorization: basicOf('ann:ann pw') },
    );
    expect(ran.status).toBe(200);
  });

  it('socket: auth_message with a listed key or user succeeds, anything else fails', async () => {
    const ws = await connect(t.url);
    ws.send({ type: 'auth_message', payload: { method: 'api_key', token: 'guessed' } });
    expect(await ws.next()).toMatchObject({ status: 'error', user_id: null });
    ws.send({ type: 'auth_message', payload: { method: 'basic', username: 'ann', password: 'guess' } });
    expect(await ws.next()).toMatchObject({ status: 'error', user_id: null });
    ws.send({ type: 'auth_message', payload: { method: 'api_key', token: 'ci-key-1' } });
    expect(await ws.next()).toMatchObject({ status: 'success', user_id: 'ci-bot' });
    ws.send({ type: 'auth_message', payload: { method: 'basic', username: 'ann', password: 'ann pw' } });
    expect(await ws.next()).toMatchObject({ status: 'success', user_id: 'ann' });
  });
});

describe('asserted identity (nothing verified): NAT’s sources and ids, with configurable cookie names', () => {
  const connect = connectClosingAfterEach();
  const whoOf = async (t: TestApp, headers: Record<string, string>) =>
    (
      (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers)).json.identity as {
        userId: string | null;
      }
    ).userId;

  it('the NAT UI’s nemo-agent-toolkit-session cookie names the user; nat-session comes first', async () => {
    const t = await startApp('workflow: { _type: whoami }\n', whoamiRegistry());
    try {
      expect(await whoOf(t, { cookie: 'nemo-agent-toolkit-session=alice' })).toBe(natUserId('alice'));
      expect(await whoOf(t, { cookie: 'nemo-agent-toolkit-session=ui; nat-session=nat' })).toBe(
        natUserId('nat'),
      );
      const ws = await connect(t.url, { session: 'alice' });
      ws.send(userMessage('who?', { schema_type: 'generate' }));
      const text = (await ws.run()).find((m) => m.status === 'in_progress')?.content.text as string;
      expect(JSON.parse(text)).toMatchObject({ identity: { userId: natUserId('alice'), source: 'cookie' } });
    } finally {
      await t.close();
    }
  });

  it('feedback the NAT UI sends over HTTP carries its user (issue 11: user_id was null)', async () => {
    const t = await startApp('workflow: { _type: echo }\n');
    const ui = { cookie: 'nemo-agent-toolkit-session=alice' };
    try {
      const ran = await fetch(`${t.url}/v1/workflow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ui },
        body: JSON.stringify({ message: 'hi' }),
      });
      const traceId = ran.headers.get('observability-trace-id')!;
      expect(traceId).toBeTruthy();
      const sent = await postJson(
        `${t.url}/feedback`,
        { observability_trace_id: traceId, reaction_type: '👍' },
        ui,
      );
      expect(sent.status).toBe(200);
      const listed = await fetch(`${t.url}/feedback?observability_trace_id=${traceId}`, { headers: ui });
      expect(((await listed.json()) as { items: unknown[] }).items).toEqual([
        expect.objectContaining({ reaction_type: '👍', user_id: natUserId('alice') }),
      ]);
    } finally {
      await t.close();
    }
  });

  it('general.auth.session_cookies names the cookies read, in order', async () => {
    const t = await startApp(
      'general:\n  auth:\n    session_cookies: [app-sid, nat-session]\nworkflow: { _type: whoami }\n',
      whoamiRegistry(),
    );
    try {
      expect(await whoOf(t, { cookie: 'nat-session=b; app-sid=a' })).toBe(natUserId('a'));
      expect(await whoOf(t, { cookie: 'nemo-agent-toolkit-session=c' })).toBeNull();
    } finally {
      await t.close();
    }
  });
});
