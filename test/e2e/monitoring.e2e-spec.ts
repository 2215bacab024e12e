import http from 'node:http';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { natUserId } from '../../src/core/identity/user-id';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const SLOW_STREAM = `- stream: { text: 'a b c d e', delay_seconds: 0.1 }`;
const ALICE = natUserId('alice');

function monitored(extra = '') {
  return scriptedYaml(SLOW_STREAM, 'done', `general:\n  enable_per_user_monitoring: true\n${extra}`);
}

interface MonitoredUser {
  user_id: string;
  session: { created_at: string; last_activity: string; ref_count: number; is_active: boolean };
  requests: { total_requests: number; active_requests: number; avg_latency_ms: number; error_count: number };
  memory: Record<string, number>;
}

const ROOT = { cookie: 'nat-session=root' };

async function readUsers(t: TestApp, query = '', headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/monitor/users${query}`, { headers });
  return {
    status: res.status,
    body: (await res.json()) as { total_active_users: number; users: MonitoredUser[] },
  };
}

describe('/monitor/users', () => {
  it('is not there unless enable_per_user_monitoring is true', async () => {
    const t = await startApp(scriptedYaml(SLOW_STREAM));
    try {
      expect((await fetch(`${t.url}/monitor/users`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('with no general.auth.admin configured it is refused (403 naming general.auth.admin), even to identified callers', async () => {
    const t = await startApp(monitored());
    try {
      await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, { cookie: 'nat-session=alice' });
      for (const headers of [{}, { cookie: 'nat-session=alice' }] as Record<string, string>[]) {
        const res = await fetch(`${t.url}/monitor/users`, { headers });
        expect(res.status).toBe(403);
        expect(((await res.json()) as { detail: string }).detail).toContain('general.auth.admin');
      }
    } finally {
      await t.close();
    }
  });

  describe('when enabled, read by an admin', () => {
    let t: TestApp;
    // Admins are named because an unconfigured list is refused; the admin's own reads are not user activity.
    beforeAll(async () => (t = await startApp(monitored(`  auth:\n    admin: ['${natUserId('root')}']\n`))));
    afterAll(() => t.close());
    const users = (t: TestApp, query = '') => readUsers(t, query, ROOT);

    it('lists every identified user with their requests, errors and sessions; anonymous callers are not listed', async () => {
      await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, { cookie: 'nat-session=alice' });
      await postJson(`${t.url}/v1/workflow`, { input_message: 'y' }, { cookie: 'nat-session=alice' });
      await postJson(`${t.url}/v1/workflow`, { wrong: true }, { cookie: 'nat-session=alice' });
      await postJson(`${t.url}/v1/workflow`, { input_message: 'z' }, { authorization: 'Bearer bob-key' });
      await postJson(`${t.url}/v1/workflow`, { input_message: 'anon' });
      const { status, body } = await users(t);
      expect(status).toBe(200);
      const alice = body.users.find((u) => u.user_id === ALICE)!;
      expect(alice.requests).toMatchObject({ total_requests: 3, active_requests: 0, error_count: 1 });
      expect(alice.requests.avg_latency_ms).toBeGreaterThan(0);
      expect(alice.session).toMatchObject({ ref_count: 0, is_active: false });
      expect(Date.parse(alice.session.last_activity)).toBeGreaterThanOrEqual(
        Date.parse(alice.session.created_at),
      );
      expect(alice.memory).toEqual({
        per_user_functions_count: 0,
        per_user_function_groups_count: 0,
        exit_stack_size: 0,
      });
      expect(body.users.map((u) => u.user_id).sort()).toEqual([ALICE, natUserId('bob-key')].sort());
      expect(body.total_active_users).toBe(2);
    });

    it('requests to unknown paths leave no record, whatever cookie they carry', async () => {
      for (let i = 0; i < 20; i++)
        await postJson(`${t.url}/nope-${i}`, {}, { cookie: `nat-session=probe-${i}` });
      const { body } = await users(t);
      expect(body.users.map((u) => u.user_id)).not.toContain(natUserId('probe-0'));
      expect(body.users.some((u) => u.user_id === natUserId('probe-19'))).toBe(false);
    });

    it('filters by user_id', async () => {
      const { body } = await users(t, `?user_id=${ALICE}`);
      expect(body.users.map((u) => u.user_id)).toEqual([ALICE]);
      expect(body.total_active_users).toBe(1);
      expect((await users(t, '?user_id=nobody')).body.users).toEqual([]);
    });

    it('a streamed request is active until its stream ends', async () => {
      const done = new Promise<void>((resolve) => {
        const req = http.request(`${t.url}/v1/workflow/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: 'nat-session=carol' },
        });
        req.on('response', (res) => res.on('data', () => undefined).on('end', resolve));
        req.end(JSON.stringify({ input_message: 'x' }));
      });
      const carol = natUserId('carol');
      await eventually(async () => {
        const { body } = await users(t, `?user_id=${carol}`);
        expect(body.users[0]?.requests.active_requests).toBe(1);
        expect(body.users[0]?.session.is_active).toBe(true);
      });
      await done;
      await eventually(async () => {
        const { body } = await users(t, `?user_id=${carol}`);
        expect(body.users[0].requests).toMatchObject({ active_requests: 0, total_requests: 1 });
      });
    });
  });

  describe('with admins configured', () => {
    let t: TestApp;
    const users = readUsers;
    const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
    beforeAll(
      async () =>
        (t = await startApp(
          monitored(`  auth:\n    admin: ['${ALICE}', 'role:operator']\n    jwt: { secret: '${SECRET}' }\n`),
        )),
    );
    afterAll(() => t.close());

    it('anonymous: 401; another user: 403; an admin by id or by role: 200', async () => {
      const { SignJWT } = await import('jose');
      const token = (roles: string[], sub = 'op') =>
        new SignJWT({ sub, roles })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(SECRET));
      expect((await users(t)).status).toBe(401);
      expect((await users(t, '', { authorization: `Bearer ${await token([], 'bob')}` })).status).toBe(403);
      expect((await users(t, '', { authorization: `Bearer ${await token([], 'alice')}` })).status).toBe(200);
      // With a JWT secret configured a session cookie is not verified, so it names nobody.
      expect((await users(t, '', { cookie: 'nat-session=alice' })).status).toBe(401);
      expect((await users(t, '', { authorization: `Bearer ${await token(['operator'])}` })).status).toBe(200);
      expect((await users(t, '', { authorization: `Bearer ${await token(['viewer'])}` })).status).toBe(403);
    });
  });

  it('with jwt.verify: false, a self-made token claiming an admin role is refused (roles count only when verified)', async () => {
    const t = await startApp(monitored(`  auth:\n    admin: ['role:ops']\n    jwt: { verify: false }\n`));
    try {
      const { SignJWT } = await import('jose');
      const forged = await new SignJWT({ sub: 'mallory', roles: ['ops'], groups: ['ops'] })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode('any key the caller likes, nobody checks it'));
      const res = await readUsers(t, '', { authorization: `Bearer ${forged}` });
      expect(res.status).toBe(403);
    } finally {
      await t.close();
    }
  });
});

describe('/metrics', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(monitored())));
  afterAll(() => t.close());

  it('is Prometheus text with interlude_ names, request counts by route and status, and no user ids', async () => {
    await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, { cookie: 'nat-session=alice' });
    await postJson(`${t.url}/v1/workflow`, { nope: 1 }, { cookie: 'nat-session=alice' });
    // Refused before any route (a name this server does not answer to): counted all the same.
    const refused = await new Promise<number | undefined>((done, fail) =>
      http
        .request(`${t.url}/v1/workflow`, { method: 'POST', headers: { host: 'elsewhere.example' } }, (r) => {
          r.resume();
          done(r.statusCode);
        })
        .on('error', fail)
        .end('{}'),
    );
    expect(refused).toBe(421);
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const families = parsePrometheusTextFormat(text);
    const names = families.map((f) => f.name);
    expect(names.every((n) => n.startsWith('interlude_'))).toBe(true);
    for (const name of [
      'interlude_http_requests_total',
      'interlude_http_request_duration_seconds',
      'interlude_executions',
      'interlude_waiting_executions',
      'interlude_websocket_connections',
      'interlude_oauth_flows',
    ]) {
      expect(names).toContain(name);
    }
    const requests = families.find((f) => f.name === 'interlude_http_requests_total')!;
    const byStatus = Object.fromEntries(
      requests.metrics
        .filter((m) => m.labels?.route === '/v1/workflow')
        .map((m) => [m.labels!.status, Number(m.value)]),
    );
    expect(byStatus).toMatchObject({ '200': 1, '422': 1 });
    const unrouted = requests.metrics.filter(
      (m) => m.labels?.route === 'unmatched' && m.labels.status === '421',
    );
    expect(unrouted.map((m) => Number(m.value))).toEqual([1]);
    const executions = families.find((f) => f.name === 'interlude_executions')!;
    const started = executions.metrics.find((m) => m.labels?.status === 'started');
    expect(Number(started?.value)).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(ALICE);
  });

  it('prints only values strict parsers accept (NaN, never Nan) when read twice in a row', async () => {
    const texts = [
      await (await fetch(`${t.url}/metrics`)).text(),
      await (await fetch(`${t.url}/metrics`)).text(),
    ];
    for (const text of texts) {
      const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
      const values = samples.map((line) => line.slice(line.lastIndexOf(' ') + 1));
      const bad = values.filter((v) => !/^(NaN|[+-]?Inf|[+-]?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(v));
      expect(bad).toEqual([]);
    }
  });

  it('counts executions waiting for a person', async () => {
    const waiting = await startApp(scriptedYaml(`- prompt: { input_type: text, text: 'Name?' }`));
    try {
      await postJson(`${waiting.url}/v1/workflow`, { input_message: 'x' });
      await postJson(`${waiting.url}/v1/workflow`, { input_message: 'y' });
      const families = parsePrometheusTextFormat(await (await fetch(`${waiting.url}/metrics`)).text());
      const gauge = families.find((f) => f.name === 'interlude_waiting_executions')!;
      expect(Number(gauge.metrics[0].value)).toBe(2);
    } finally {
      await waiting.close();
    }
  });
});

describe('/health/ready', () => {
  it('checks the execution store and the database', async () => {
    const t = await startApp(monitored());
    try {
      const res = await fetch(`${t.url}/health/ready`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ready',
        checks: { executions: 'ok', database: 'ok' },
      });
    } finally {
      await t.close();
    }
  });
});
