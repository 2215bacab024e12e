import { heldResponses } from '../utils/held-responses';
import { ALICE, BOB, jobsAt, jsonCall } from '../utils/jobs-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const ASKS = scriptedYaml(
  `- prompt: { input_type: text, text: 'Name?', save_as: name }`,
  'Hello {{name}}',
  `general:
  async:
    max_concurrent_jobs: 2`,
);

describe('async jobs waiting for a person hold no slot', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ASKS)));
  afterAll(() => t?.close());

  const answer = (job: Record<string, unknown>, text: string, headers: Record<string, string>) =>
    jsonCall('POST', `${t.url}${String(job.response_url)}`, { response: { type: 'text', text } }, headers);

  it("three of one user's jobs waiting for a person (two slots) do not stop another user's job; each finishes after its answer", async () => {
    const alice = jobsAt(t.url, '/v1/workflow', ALICE);
    const bob = jobsAt(t.url, '/v1/workflow', BOB);
    for (const id of ['a1', 'a2', 'a3']) {
      expect((await alice.submit({ input_message: id, job_id: id })).status).toBe(202);
    }
    const waiting = [];
    for (const id of ['a1', 'a2', 'a3']) waiting.push(await alice.until(id, 'interaction_required'));

    expect((await bob.submit({ input_message: 'b', job_id: 'b1' })).status).toBe(202);
    const bobs = await bob.until('b1', 'interaction_required');
    expect((await answer(bobs, 'Bob', BOB)).status).toBe(204);
    expect((await bob.until('b1', 'success')).output).toEqual({ value: 'Hello Bob' });

    for (const [i, job] of waiting.entries()) expect((await answer(job, `A${i}`, ALICE)).status).toBe(204);
    for (const [i, id] of ['a1', 'a2', 'a3'].entries()) {
      expect((await alice.until(id, 'success')).output).toEqual({ value: `Hello A${i}` });
    }
  });
});

describe('a share of running jobs per user, and for anonymous callers together', () => {
  let t: TestApp;
  let g: Awaited<ReturnType<typeof heldResponses>>;
  beforeAll(async () => {
    g = await heldResponses();
    t = await startApp(
      scriptedYaml(
        `- fetch: { url: '${g.url}/run?i={{input}}' }`,
        'done {{input}}',
        `general:
  outbound: { allow_hosts: [127.0.0.1] }
  async:
    max_concurrent_jobs: 4
    max_running_jobs_per_user: 1
    max_running_anonymous_jobs: 1`,
      ),
    );
  });
  afterAll(async () => {
    await g.close();
    await t?.close();
  });

  it("a user's second job waits in submitted, saying why, while other users' jobs run; it starts when the first ends", async () => {
    const alice = jobsAt(t.url, '/v1/workflow', ALICE);
    const bob = jobsAt(t.url, '/v1/workflow', BOB);
    const anonymous = jobsAt(t.url, '/v1/workflow');
    await alice.submit({ input_message: 'a1', job_id: 'a1' });
    await eventually(() => expect(g.has('a1')).toBe(true));
    await alice.submit({ input_message: 'a2', job_id: 'a2' });
    const held = await eventually(async () => {
      const { body } = await alice.status('a2');
      expect(body).toMatchObject({ status: 'submitted', waiting_reason: expect.any(String) });
      return body;
    });
    expect(held.waiting_reason).toBe(
      'You run 1 jobs at once (general.async.max_running_jobs_per_user); this one starts when one of them ends or waits for a person',
    );

    await bob.submit({ input_message: 'b1', job_id: 'b1' });
    await anonymous.submit({ input_message: 'n1', job_id: 'n1' });
    await anonymous.submit({ input_message: 'n2', job_id: 'n2' });
    await eventually(() => expect([g.has('b1'), g.has('n1')]).toEqual([true, true]));
    expect((await bob.status('b1')).body).toMatchObject({ status: 'running' });
    const anonymousHeld = await eventually(async () => {
      const { body } = await anonymous.status('n2');
      expect(body).toMatchObject({ status: 'submitted', waiting_reason: expect.any(String) });
      return body;
    });
    expect(anonymousHeld.waiting_reason).toMatch(
      /^Anonymous callers run 1 jobs at once \(general\.async\.max_running_anonymous_jobs\)/,
    );
    expect(g.has('a2')).toBe(false);

    g.release('a1');
    expect((await alice.until('a1', 'success')).output).toEqual({ value: 'done a1' });
    await eventually(() => expect(g.has('a2')).toBe(true));
    const started = (await alice.status('a2')).body;
    expect(started.status).toBe('running');
    expect(started).not.toHaveProperty('waiting_reason');

    for (const id of ['a2', 'b1', 'n1']) g.release(id);
    await eventually(() => expect(g.has('n2')).toBe(true));
    g.release('n2');
    for (const [jobs, id] of [
      [alice, 'a2'],
      [bob, 'b1'],
      [anonymous, 'n1'],
      [anonymous, 'n2'],
    ] as const) {
      expect((await jobs.until(id, 'success')).output).toEqual({ value: `done ${id}` });
    }
  });
});
