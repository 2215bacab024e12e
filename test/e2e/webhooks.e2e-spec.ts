import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { natUserId } from '../../src/core/identity/user-id';
import { jobsAt } from '../utils/jobs-client';
import { postJson } from '../utils/sse';
import { ECHO_YAML, eventually, scriptedYaml, startApp } from '../utils/test-app';
import { verifyStandardWebhook, webhookReceiver, type Delivery } from '../utils/webhook-receiver';

const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };
const JOB = scriptedYaml(`- step: { name: s }`, 'done {{input}}');

function jobsYaml(async: string, outbound = "  outbound: { allow_hosts: ['127.0.0.1'] }\n") {
  return `general:\n${outbound}  async:\n    webhook_backoff_seconds: 0.05\n${async}${JOB}`;
}

describe('job completion webhooks', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(Logger.prototype, 'warn')));
  afterEach(() => warn.mockRestore());

  it('are signed over id, timestamp and body (Standard Webhooks): a receiver verifies each attempt and refuses one replayed later', async () => {
    let failures = 1;
    const receiver = await webhookReceiver(() => (failures-- > 0 ? 503 : 204));
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const t = await startApp(
      jobsYaml(`    webhook_url: '${receiver.url}/server'\n    webhook_secret: '${secret}'\n`),
    );
    try {
      const jobId = `signed-${randomUUID()}`;
      await jobsAt(t.url, '/v1/workflow', ALICE).submit({ input_message: 'x', job_id: jobId });
      const [first, retry] = await eventually(() => {
        expect(receiver.received).toHaveLength(2);
        return receiver.received;
      });
      for (const delivery of [first, retry]) {
        expect(verifyStandardWebhook(secret, delivery)).toMatchObject({
          event: 'job.finished',
          job_id: jobId,
          status: 'success',
          user_id: natUserId('alice'),
        });
      }
      // A retry is the same message (the receiver de-duplicates on the id), signed again.
      expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
      // The timestamp is signed: captured and sent again ten minutes on, or with a fresh timestamp
      // pasted in, the delivery is refused.
      const replayed = (d: Delivery, headers: Record<string, string>) => ({
        ...d,
        headers: { ...d.headers, ...headers },
      });
      expect(() => verifyStandardWebhook(secret, retry, Date.now() + 10 * 60_000)).toThrow('too old');
      const later = String(Math.floor(Date.now() / 1000) + 600);
      expect(() =>
        verifyStandardWebhook(secret, replayed(retry, { 'webhook-timestamp': later }), Date.now() + 600_000),
      ).toThrow('no webhook-signature matches');
      expect(() => verifyStandardWebhook('another secret', retry)).toThrow('no webhook-signature matches');
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it("name the job's owner: two users' job `j1` are told apart", async () => {
    const receiver = await webhookReceiver();
    const t = await startApp(
      jobsYaml(`    webhook_url: '${receiver.url}/server'\n    webhook_secret: plain-secret\n`),
    );
    try {
      for (const who of [ALICE, BOB]) {
        expect(
          (await jobsAt(t.url, '/v1/workflow', who).submit({ input_message: 'x', job_id: 'j1' })).status,
        ).toBe(202);
      }
      const bodies = await eventually(() => {
        expect(receiver.received).toHaveLength(2);
        return receiver.received.map((d) => verifyStandardWebhook('plain-secret', d));
      });
      expect(bodies.map((b) => [b.job_id, b.user_id]).sort()).toEqual(
        [
          ['j1', natUserId('alice')],
          ['j1', natUserId('bob')],
        ].sort(),
      );
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('a host in webhook_allow_hosts that resolves to a private address is refused unless general.outbound allows it', async () => {
    const receiver = await webhookReceiver();
    const hook = `http://localhost:${receiver.port}/job`;
    const allowLocalhost = "    webhook_allow_hosts: ['localhost']\n    webhook_max_attempts: 1\n";
    try {
      const t = await startApp(jobsYaml(allowLocalhost, ''));
      try {
        const jobs = jobsAt(t.url, '/v1/workflow', ALICE);
        const submitted = await jobs.submit({ input_message: 'x', job_id: 'private', webhook_url: hook });
        expect(submitted.status).toBe(202);
        await jobs.until('private', 'success');
        await eventually(() =>
          expect(warn).toHaveBeenCalledWith(
            expect.stringContaining('requests to localhost (127.0.0.1) are refused'),
          ),
        );
        expect(receiver.received).toEqual([]);
      } finally {
        await t.close();
      }
      // Listed in general.outbound too, the same URL is called.
      const allowed = await startApp(jobsYaml(allowLocalhost));
      try {
        await jobsAt(allowed.url, '/v1/workflow', ALICE).submit({ input_message: 'x', webhook_url: hook });
        await eventually(() => expect(receiver.received.map((d) => d.path)).toEqual(['/job']));
      } finally {
        await allowed.close();
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('the feedback webhook', () => {
  it('is signed the same way when general.feedback.webhook_secret is set, and names the sender', async () => {
    const receiver = await webhookReceiver();
    const t = await startApp(
      `general:\n  outbound: { allow_hosts: [127.0.0.1] }\n  feedback:\n    webhook_url: ${receiver.url}/hook\n` +
        `    webhook_secret: feedback-secret\n${ECHO_YAML}`,
    );
    try {
      const trace = randomUUID();
      await postJson(`${t.url}/feedback`, { observability_trace_id: trace, reaction_type: '👍' }, ALICE);
      const [delivery] = await eventually(() => {
        expect(receiver.received).toHaveLength(1);
        return receiver.received;
      });
      expect(verifyStandardWebhook('feedback-secret', delivery)).toMatchObject({
        observability_trace_id: trace,
        user_id: natUserId('alice'),
      });
      expect(() => verifyStandardWebhook('feedback-secret', delivery, Date.now() + 600_000)).toThrow(
        'too old',
      );
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
