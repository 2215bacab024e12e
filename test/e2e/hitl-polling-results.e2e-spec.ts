import { Executions, NAME_STEPS, NAME_YAML, type Pause } from '../utils/hitl';
import { openStream } from '../utils/live-sse';
import { probeRegistry } from '../utils/probe-function';
import { user } from '../utils/chat';
import { postJson } from '../utils/sse';
import { configFrom, eventually, scriptedYaml, startApp } from '../utils/test-app';

describe('HITL polling: results, failures and non-pausing workflows', () => {
  it('a workflow that finishes without asking answers 200 with its normal body', async () => {
    const t = await startApp(scriptedYaml(`- stream: { text: 'a b' }`, 'plain {{input}}'));
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'run' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'plain run' });
      const chat = await postJson(`${t.url}/v1/chat`, user('run'));
      expect(chat.status).toBe(200);
      expect(chat.json.object).toBe('chat.completion');
    } finally {
      await t.close();
    }
  });

  it('notifications do not pause: a notification-only workflow answers 200', async () => {
    const t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: notification, text: 'Working on {{input}}' }
- prompt: { input_type: notification, text: 'Still working' }`,
        'noted {{input}}',
      ),
    );
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'it' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'noted it' });
      // a notification on a non-interactive route is fine too
      expect((await postJson(`${t.url}/generate`, { input_message: 'it' })).json).toEqual({
        value: 'noted it',
      });
    } finally {
      await t.close();
    }
  });

  it('/v1/chat: 202, and the completed result is a chat.completion', async () => {
    const t = await startApp(NAME_YAML);
    const ex = new Executions(t.url);
    try {
      const start = await postJson(`${t.url}/v1/chat`, { model: 'm1', ...user('hi') });
      expect(start.status).toBe(202);
      const pause = start.json as unknown as Pause;
      expect(pause).toMatchObject({
        status: 'interaction_required',
        status_url: `/executions/${pause.execution_id}`,
        prompt: { input_type: 'text', text: 'Your name?', placeholder: 'A name', required: true },
      });
      expect((await ex.answer(pause.response_url, { type: 'text', text: 'Eve' })).status).toBe(204);
      const done = await ex.ended(pause.execution_id);
      expect(done).toEqual({
        execution_id: pause.execution_id,
        status: 'completed',
        result: expect.any(Object),
      });
      expect(done.result).toMatchObject({
        object: 'chat.completion',
        model: 'm1',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hello Eve (hi)' }, finish_reason: 'stop' },
        ],
      });
    } finally {
      await t.close();
    }
  });

  it('a workflow that fails after an answer: status failed with its error', async () => {
    const t = await startApp(
      scriptedYaml(
        `${NAME_STEPS}\n- fail: { message: 'no {{name}} allowed', error_type: ValueError }`,
        'unused',
      ),
    );
    const ex = new Executions(t.url);
    try {
      const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      const pause = start.json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Zed' });
      expect(await ex.ended(pause.execution_id)).toEqual({
        execution_id: pause.execution_id,
        status: 'failed',
        error: 'no Zed allowed',
      });
      expect((await ex.cancel(pause.execution_id)).status).toBe(409);
    } finally {
      await t.close();
    }
  });

  it('a binary_choice prompt needs exactly two options (config error)', () => {
    expect(() =>
      configFrom(
        scriptedYaml(
          `- prompt: { input_type: binary_choice, text: 'Pick', options: [{ id: a, label: A, value: a }, { id: b, label: B, value: b }, { id: c, label: C, value: c }] }`,
        ),
      ),
    ).toThrow(/exactly two options, not 3/);
    expect(() =>
      configFrom(
        scriptedYaml(`- prompt: { input_type: radio, text: 'Pick', options: [{ id: a, label: A }] }`),
      ),
    ).toThrow(/value/);
  });
});

describe('HITL polling: cancelling a running workflow', () => {
  it('DELETE aborts ctx.signal; status failed "Execution cancelled"; the stream ends with event: error', async () => {
    const { registry, runs } = probeRegistry();
    const t = await startApp('workflow:\n  _type: probe\n', registry);
    const ex = new Executions(t.url);
    try {
      const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'go' } });
      const id = stream.headers['x-execution-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      await stream.next((f) => f.data !== undefined);
      expect((await ex.status(id)).json).toEqual({ execution_id: id, status: 'running' });
      const del = await ex.cancel(id);
      expect(del.status).toBe(204);
      await stream.end();
      const error = stream.frames.find((f) => f.event === 'error');
      expect(JSON.parse(error!.data!)).toEqual({
        code: 'workflow_error',
        message: 'Execution cancelled: cancelled by client',
        details: 'ExecutionCancelled',
      });
      expect(stream.frames[stream.frames.length - 1]).toBe(error);
      await eventually(() => expect(runs[0].ended).toBe('aborted'));
      expect(runs[0].ctx.signal.aborted).toBe(true);
      expect(runs[0].abortReason).toMatchObject({
        name: 'ExecutionCancelled',
        reason: 'cancelled by client',
      });
      expect((await ex.status(id)).json).toEqual({
        execution_id: id,
        status: 'failed',
        error: 'Execution cancelled',
      });
      expect((await ex.cancel(id)).status).toBe(409);
    } finally {
      await t.close();
    }
  });
});
