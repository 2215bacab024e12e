import { natUserId } from '../../src/core/identity/user-id';
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml } from '../utils/test-app';

const X = { cookie: 'nat-session=xavier' };
const Y = { cookie: 'nat-session=yvonne' };
const ROOT = { cookie: 'nat-session=root' };

// Continues the `general:` block the shared-store lines open.
const CONFIG = `  enable_per_user_monitoring: true
  max_waiting_executions_per_user: 2
  auth:
    admin: ['${natUserId('root')}']
${scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: name }`, 'Hello {{name}}')}`;

interface Monitored {
  user_id: string;
  requests: { total_requests: number; active_requests: number };
  executions: { waiting: number };
}

async function monitored(base: string, userId: string): Promise<Monitored | undefined> {
  const res = await fetch(`${base}/monitor/users?user_id=${userId}`, { headers: ROOT });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { users: Monitored[]; total_active_users: number };
  return body.users[0];
}

async function startWaiting(base: string, headers: Record<string, string>) {
  const res = await postJson(`${base}/v1/workflow`, { input_message: 'x' }, headers);
  return { status: res.status, json: res.json as { response_url?: string; detail?: string } };
}

/** Per-user limits and /monitor/users hold across replicas: counts come from the shared store. */
requires('postgres')('Limits and monitoring across replicas', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    let a: string;
    let b: string;
    beforeAll(async () => {
      replicas = await startReplicas(2, CONFIG);
      [a, b] = replicas.apps.map((app) => app.url);
    });
    afterAll(() => replicas.close());

    it('one waiting execution on A and one on B: both replicas report 2 waiting and 2 requests for the user', async () => {
      expect((await startWaiting(a, X)).status).toBe(202);
      expect((await startWaiting(b, X)).status).toBe(202);
      const xavier = natUserId('xavier');
      for (const base of [a, b]) {
        await eventually(async () => {
          expect(await monitored(base, xavier)).toMatchObject({
            user_id: xavier,
            requests: { total_requests: 2, active_requests: 0 },
            executions: { waiting: 2 },
          });
        }, 5000);
      }
    });

    it('max_waiting_executions_per_user holds across replicas: the third, on either, gets 429; answering one frees a place', async () => {
      const first = await startWaiting(a, Y);
      expect(first.status).toBe(202);
      expect((await startWaiting(b, Y)).status).toBe(202);
      for (const base of [a, b]) {
        const third = await startWaiting(base, Y);
        expect(third.status).toBe(429);
        expect(String(third.json.detail)).toMatch(/2 executions waiting/);
      }
      // Others are not held back.
      expect((await startWaiting(b, { cookie: 'nat-session=zed' })).status).toBe(202);
      // Answered on B (A runs it): a place is free on every replica.
      const answered = await fetch(`${b}${first.json.response_url}`, {
        method: 'POST',
        headers: { ...Y, 'content-type': 'application/json' },
        body: JSON.stringify({ response: { type: 'text', text: 'Ann' } }),
      });
      expect(answered.status).toBe(204);
      await eventually(async () => expect((await startWaiting(b, Y)).status).toBe(202), 3000, 100);
    });
  });
});
