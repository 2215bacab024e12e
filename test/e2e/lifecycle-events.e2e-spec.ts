import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  ExecutionFinished,
  ExecutionHandedOver,
  ExecutionPaused,
  ExecutionResumed,
  ExecutionStarted,
} from '../../src/core/events/execution-events';
import { natUserId } from '../../src/core/identity/user-id';
import { ExecutionStore } from '../../src/executions/store/execution.store';
import { FeedbackRecorded } from '../../src/feedback/feedback-recorded';
import { JobFinished } from '../../src/jobs/job-finished';
import { Executions, NAME_YAML, type Pause } from '../utils/hitl';
import { jobsAt } from '../utils/jobs-client';
import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { eventually, failingYaml, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const EVENTS = [
  ExecutionStarted.event,
  ExecutionPaused.event,
  ExecutionResumed.event,
  ExecutionFinished.event,
  ExecutionHandedOver.event,
  JobFinished.event,
  FeedbackRecorded.event,
];

interface Heard {
  name: string;
  event: Record<string, unknown>;
}

/**
 * What a listener on the app's event bus hears, in order; `mark` notes what the client saw meanwhile,
 * so a test can say an event came before the client got its answer.
 */
function listen(t: TestApp) {
  const heard: Heard[] = [];
  const bus = t.app.get(EventEmitter2);
  for (const name of EVENTS) {
    bus.on(name, (event: Record<string, unknown>) => heard.push({ name, event }));
  }
  return {
    heard,
    mark: (what: string) => heard.push({ name: what, event: {} }),
    names: () => heard.map((h) => h.name),
    of: (name: string) => heard.filter((h) => h.name === name).map((h) => h.event),
  };
}

describe('Lifecycle events: a request answered with its result', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('workflow:\n  _type: per_user_counter\n  per_user: true\n');
  });
  afterAll(() => t.close());

  it('started, then finished once (completed), with its ids and its per-user instance, before the answer', async () => {
    const bus = listen(t);
    const res = await postJson(
      `${t.url}/v1/workflow`,
      { action: 'increment' },
      { cookie: 'nat-session=ann' },
    );
    bus.mark('answered');
    expect(res.status).toBe(200);
    expect(bus.names()).toEqual([ExecutionStarted.event, ExecutionFinished.event, 'answered']);
    const [started] = bus.of(ExecutionStarted.event);
    const [finished] = bus.of(ExecutionFinished.event);
    const traceId = res.headers.get('observability-trace-id');
    expect(started).toMatchObject({
      traceId,
      workflow: 'per_user_counter',
      identity: expect.objectContaining({ userId: natUserId('ann') }),
    });
    expect(finished).toMatchObject({
      executionId: started.executionId,
      traceId,
      outcome: { kind: 'completed' },
      holder: expect.objectContaining({ userId: natUserId('ann') }),
    });
    expect(finished.span).toBeDefined();
  });
});

describe('Lifecycle events: executions that pause for a person', () => {
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    t = await startApp(NAME_YAML);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  async function paused() {
    const bus = listen(t);
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
    expect(res.status).toBe(202);
    return { bus, pause: res.json as unknown as Pause };
  }

  it('paused when the prompt opens, resumed when it is answered, then finished once', async () => {
    const { bus, pause } = await paused();
    expect(bus.names()).toEqual([ExecutionStarted.event, ExecutionPaused.event]);
    const wait = { kind: 'interaction', interactionId: pause.interaction_id };
    expect(bus.of(ExecutionPaused.event)).toEqual([{ executionId: pause.execution_id, wait }]);

    expect((await ex.answer(pause.response_url, { type: 'text', text: 'Hal' })).status).toBe(204);
    expect((await ex.ended(pause.execution_id)).status).toBe('completed');
    expect(bus.names()).toEqual([
      ExecutionStarted.event,
      ExecutionPaused.event,
      ExecutionResumed.event,
      ExecutionFinished.event,
    ]);
    expect(bus.of(ExecutionResumed.event)).toEqual([{ executionId: pause.execution_id, wait }]);
    expect(bus.of(ExecutionFinished.event)).toMatchObject([
      { executionId: pause.execution_id, outcome: { kind: 'completed' } },
    ]);
  });

  it('a cancelled wait ends with finished (cancelled, and why), and no resumed after it', async () => {
    const { bus, pause } = await paused();
    expect((await ex.cancel(pause.execution_id)).status).toBe(204);
    expect((await ex.ended(pause.execution_id)).status).toBe('failed');
    // The prompt is closed as cancelled once the run has stopped: only then is everything said.
    const store = t.app.get(ExecutionStore);
    await eventually(async () => {
      const record = await store.get(pause.execution_id);
      expect(record?.interactions[pause.interaction_id]?.status).toBe('cancelled');
    });
    expect(bus.names()).toEqual([ExecutionStarted.event, ExecutionPaused.event, ExecutionFinished.event]);
    expect(bus.of(ExecutionFinished.event)).toMatchObject([
      { executionId: pause.execution_id, outcome: { kind: 'cancelled', reason: 'cancelled by client' } },
    ]);
  });
});

describe('Lifecycle events: an execution that waits for an OAuth authorization', () => {
  it('paused (oauth) when the person must consent, resumed once they did, then finished', async () => {
    const redirect = 'http://interlude.test/auth/redirect';
    const auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [redirect] }],
    });
    const client = { client_id: 'interlude', client_secret: 'secret', redirect_uri: redirect };
    const provider = oauthProvider(auth, client, { auth_timeout_seconds: 30 });
    const general = 'general:\n  outbound: { allow_hosts: [127.0.0.1] }\n';
    const t = await startApp(general + calendarWorkflowYaml(auth, provider));
    try {
      const bus = listen(t);
      const alice = { cookie: 'nat-session=alice' };
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, alice);
      expect(res.status).toBe(202);
      const id = res.json.execution_id as string;
      expect(bus.names()).toEqual([ExecutionStarted.event, ExecutionPaused.event]);
      expect(bus.of(ExecutionPaused.event)).toEqual([{ executionId: id, wait: { kind: 'oauth' } }]);

      const browser = OAuthBrowser.of(t.url, auth, 'alice', alice);
      const authUrl = await browser.open(res.json.auth_url as string);
      expect((await browser.callback(await auth.authorize(authUrl, 'alice'))).status).toBe(200);
      await eventually(() => expect(bus.of(ExecutionFinished.event)).toHaveLength(1));
      expect(bus.names()).toEqual([
        ExecutionStarted.event,
        ExecutionPaused.event,
        ExecutionResumed.event,
        ExecutionFinished.event,
      ]);
      expect(bus.of(ExecutionResumed.event)).toEqual([{ executionId: id, wait: { kind: 'oauth' } }]);
      expect(bus.of(ExecutionFinished.event)).toMatchObject([
        { executionId: id, outcome: { kind: 'completed' } },
      ]);
    } finally {
      await t.close();
      await auth.close();
    }
  });
});

describe('Lifecycle events: a failed execution', () => {
  it('finished once, failed, with the message and type the client sees', async () => {
    const t = await startApp(failingYaml(''));
    try {
      const bus = listen(t);
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      bus.mark('answered');
      expect(res.status).toBe(422);
      expect(bus.names()).toEqual([ExecutionStarted.event, ExecutionFinished.event, 'answered']);
      expect(bus.of(ExecutionFinished.event)).toMatchObject([
        { outcome: { kind: 'failed', message: 'tool exploded', type: 'ValueError' } },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('Lifecycle events: jobs and feedback', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(scriptedYaml(`- stream: { text: 'hi' }`, 'done'))));
  afterAll(() => t.close());

  it('job.finished once per job, with the job as recorded', async () => {
    const bus = listen(t);
    const jobs = jobsAt(t.url);
    const submitted = await jobs.submit({ input_message: 'hi', job_id: 'events-1' });
    expect(submitted.status).toBe(202);
    await jobs.until('events-1', 'success');
    expect(bus.of(JobFinished.event)).toMatchObject([
      { job: { jobId: 'events-1', kind: 'workflow', status: 'success' } },
    ]);
  });

  it('feedback.recorded with the stored item, before the sender is answered', async () => {
    const bus = listen(t);
    const body = { observability_trace_id: '01933b2e-1234-5678-9abc-def012345678', reaction_type: '👍' };
    const res = await postJson(`${t.url}/feedback`, body, { cookie: 'nat-session=ann' });
    bus.mark('answered');
    expect(res.status).toBe(200);
    expect(bus.names()).toEqual([FeedbackRecorded.event, 'answered']);
    expect(bus.of(FeedbackRecorded.event)).toEqual([
      { item: { ...body, comment: null, user_id: natUserId('ann'), created_at: expect.any(String) } },
    ]);
  });
});
