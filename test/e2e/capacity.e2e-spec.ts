import { SignJWT } from 'jose';
import { Executions } from '../utils/hitl';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

const ASK = scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hi {{name}}');

function withGeneral(general: string, yaml = ASK) {
  return yaml.replace('workflow:', () => `general:\n${general}\nworkflow:`);
}

const start = (t: TestApp, headers: Record<string, string> = {}) =>
  postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers);

describe('capacity for executions waiting for a person', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(
        withGeneral(
          '  max_waiting_executions: 10\n  max_anonymous_waiting_executions: 3\n  max_waiting_executions_per_address: 6',
        ),
      )),
  );
  afterAll(() => t.close());

  it('anonymous callers share a small pool; identified users keep the headroom they cannot take', async () => {
    for (let i = 0; i < 3; i++) expect((await start(t)).status).toBe(202);
    const refused = await start(t);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.json).toEqual({ detail: expect.stringMatching(/max_anonymous_waiting_executions/) });
    expect((await start(t, { cookie: 'nat-session=alice' })).status).toBe(202);
  });

  it('rotating identities from one address stops at max_waiting_executions_per_address', async () => {
    // 3 anonymous + alice are waiting from this address already: two more fit.
    expect((await start(t, { cookie: 'nat-session=rot-1' })).status).toBe(202);
    expect((await start(t, { cookie: 'nat-session=rot-2' })).status).toBe(202);
    const refused = await start(t, { cookie: 'nat-session=rot-3' });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: expect.stringMatching(/max_waiting_executions_per_address/) });
  });
});

describe('verified users and the per-address limit', () => {
  it('users with verified tokens behind one address are held only to their own limit', async () => {
    const secret = 'a-test-secret-of-at-least-32-bytes!!';
    const t = await startApp(
      withGeneral(
        `  auth:\n    jwt: { secret: '${secret}' }\n  max_waiting_executions_per_address: 1\n  max_waiting_executions_per_user: 2`,
      ),
    );
    const token = (sub: string) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    try {
      for (const sub of ['ann', 'ann', 'bob', 'cy']) {
        const res = await start(t, { authorization: `Bearer ${await token(sub)}` });
        expect(res.status).toBe(202);
      }
      expect((await start(t, { authorization: `Bearer ${await token('ann')}` })).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('trust_proxy and the per-address limit', () => {
  it('behind a trusted proxy, each forwarded address has its own allowance', async () => {
    const t = await startApp(
      withGeneral(
        "  max_anonymous_waiting_executions: 10\n  max_waiting_executions_per_address: 1\n  front_end:\n    trust_proxy: ['127.0.0.1']",
      ),
    );
    try {
      expect((await start(t, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(202);
      expect((await start(t, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
      expect((await start(t, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(202);
    } finally {
      await t.close();
    }
  });
});

describe('the per-address limit counts runs started on the socket too', () => {
  it('a run waiting on a WebSocket uses the address allowance an HTTP request then lacks', async () => {
    const t = await startApp(withGeneral('  max_waiting_executions_per_address: 1'));
    try {
      const ws = await WsClient.connect(t.url);
      ws.send(userMessage('x'));
      const asked = await ws.next();
      expect(asked.type).toBe('system_interaction_message');
      // the prompt was recorded as waiting before it was sent
      const refused = await start(t);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ detail: expect.stringMatching(/max_waiting_executions_per_address/) });
      ws.socket.close();
    } finally {
      await t.close();
    }
  });
});

describe('default_prompt_timeout_seconds', () => {
  it('a prompt written without a timeout still stops waiting after the default', async () => {
    const t = await startApp(withGeneral('  default_prompt_timeout_seconds: 1'));
    const ex = new Executions(t.url);
    try {
      const paused = await start(t);
      expect(paused.status).toBe(202);
      expect((paused.json.prompt as { timeout: unknown }).timeout).toBeNull();
      const id = paused.json.execution_id as string;
      await eventually(
        async () => expect((await ex.status(id)).json).toMatchObject({ status: 'failed' }),
        9000,
        200,
      );
    } finally {
      await t.close();
    }
  });
});
