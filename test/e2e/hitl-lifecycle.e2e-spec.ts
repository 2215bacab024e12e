import { ExecutionService } from '../../src/executions/engine/execution.service';
import { alreadyResolved, call, Executions, NAME_YAML, type Pause } from '../utils/hitl';
import { user } from '../utils/chat';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml, startApp } from '../utils/test-app';

describe('HITL lifecycle: prompt timeouts', () => {
  it('a prompt with timeout T fails the wait after T + 5 s; the execution fails; a late answer is 400', async () => {
    const t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Quick!', timeout: 0.1, save_as: a }`, '{{a}}'),
    );
    const ex = new Executions(t.url);
    try {
      const started = Date.now();
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      expect(res.status).toBe(202);
      const pause = res.json as unknown as Pause;
      expect(pause.prompt.timeout).toBe(0.1);
      // polled until it ends: still waiting well past T, within the grace (NAT waits T + 5 s)
      let lastWaiting = 0;
      const ended = await eventually(async () => {
        const { json } = await ex.status(pause.execution_id);
        if (json.status === 'interaction_required') lastWaiting = Date.now();
        expect(['completed', 'failed']).toContain(json.status);
        return json;
      }, 8000);
      expect(lastWaiting - started).toBeGreaterThanOrEqual(1000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
      expect(ended).toEqual({
        execution_id: pause.execution_id,
        status: 'failed',
        error: 'HITL prompt timed out after 0.1s waiting for human response',
      });
      const late = await ex.answer(pause.response_url, { type: 'text', text: 'now?' });
      expect(late.status).toBe(400);
      expect(late.json).toEqual(alreadyResolved(pause.interaction_id));
    } finally {
      await t.close();
    }
  });
});

describe('HITL lifecycle: finished executions are kept for execution_ttl_seconds', () => {
  it('a terminal execution stays readable, then is removed (404)', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  execution_ttl_seconds: 1\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const done = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      const pause = done.json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Hal' });
      const cancelled = (await postJson(`${t.url}/v1/workflow`, { input_message: 'y' }))
        .json as unknown as Pause;
      await ex.cancel(cancelled.execution_id);
      const waiting = (await postJson(`${t.url}/v1/workflow`, { input_message: 'z' }))
        .json as unknown as Pause;
      expect((await ex.ended(pause.execution_id)).status).toBe('completed');

      const service = t.app.get(ExecutionService);
      await service.sweep(Date.now());
      // not yet expired
      expect((await ex.status(pause.execution_id)).status).toBe(200);
      expect((await ex.status(cancelled.execution_id)).status).toBe(200);

      await service.sweep(Date.now() + 1500);
      for (const id of [pause.execution_id, cancelled.execution_id]) {
        const gone = await ex.status(id);
        expect(gone.status).toBe(404);
        expect(gone.json).toEqual({ detail: `Execution ${id} not found` });
        expect((await ex.cancel(id)).status).toBe(404);
        expect((await call('GET', `${t.url}/executions/${id}/stream`)).status).toBe(404);
      }
      const late = await ex.answer(pause.response_url, { type: 'text', text: 'x' });
      expect(late.status).toBe(404);
      // an execution still waiting is not swept, however old
      expect((await ex.status(waiting.execution_id)).json.status).toBe('interaction_required');
      await ex.answer(waiting.response_url, { type: 'text', text: 'Ivy' });
      expect((await ex.ended(waiting.execution_id)).result).toEqual({ value: 'Hello Ivy (z)' });
    } finally {
      await t.close();
    }
  });

  it('the background sweeper (every min(ttl, 30 s)) removes them without help', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  execution_ttl_seconds: 1\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const pause = (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' })).json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Jo' });
      expect((await ex.ended(pause.execution_id)).status).toBe('completed');
      await eventually(async () => expect((await ex.status(pause.execution_id)).status).toBe(404), 4000, 100);
    } finally {
      await t.close();
    }
  });
});

describe('HITL limits: max_waiting_executions', () => {
  it('429 with Retry-After and a message once that many executions are waiting', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  max_waiting_executions: 2\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const first = (await postJson(`${t.url}/v1/workflow`, { input_message: '1' })).json as unknown as Pause;
      const second = await postJson(`${t.url}/v1/chat`, user('2'));
      expect(second.status).toBe(202);
      for (const path of ['/v1/workflow', '/v1/chat', '/v1/workflow/stream']) {
        const full = await postJson(
          `${t.url}${path}`,
          path === '/v1/chat' ? user('3') : { input_message: '3' },
        );
        expect(full.status).toBe(429);
        expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(full.json).toEqual({
          detail: 'Too many executions are waiting for a person (2); try again later.',
        });
      }
      // non-interactive routes are not limited
      expect((await postJson(`${t.url}/generate`, { input_message: '3' })).status).toBe(422);
      // answering one frees a place
      await ex.answer(first.response_url, { type: 'text', text: 'Kai' });
      await ex.ended(first.execution_id);
      const third = await postJson(`${t.url}/v1/workflow`, { input_message: '3' });
      expect(third.status).toBe(202);
      // cancelling one frees a place too
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: '4' })).status).toBe(429);
      await ex.cancel(third.json.execution_id as string);
      const fourth = await postJson(`${t.url}/v1/workflow`, { input_message: '4' });
      expect(fourth.status).toBe(202);
      await ex.cancel(fourth.json.execution_id as string);
      await ex.cancel(second.json.execution_id as string);
    } finally {
      await t.close();
    }
  });
});

describe('HITL concurrency', () => {
  it('200 concurrent executions, each waiting on a prompt, answered in random order: no cross-talk', async () => {
    // One anonymous client from one address: above the default per-address allowance on purpose.
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  max_waiting_executions_per_address: 200\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const n = 200;
      const inputs = Array.from(
        { length: n },
        (_, i) => `input-${i}-${Math.random().toString(36).slice(2, 8)}`,
      );
      const starts = await Promise.all(
        inputs.map((input) => postJson(`${t.url}/v1/workflow`, { input_message: input })),
      );
      expect(starts.every((s) => s.status === 202)).toBe(true);
      const pauses = starts.map((s) => s.json as unknown as Pause);
      expect(new Set(pauses.map((p) => p.execution_id)).size).toBe(n);
      expect(new Set(pauses.map((p) => p.interaction_id)).size).toBe(n);

      const order = pauses.map((p, i) => ({ p, i, key: Math.random() })).sort((a, b) => a.key - b.key);
      const answers = await Promise.all(
        order.map(({ p, i }) => ex.answer(p.response_url, { type: 'text', text: `answer-for-${inputs[i]}` })),
      );
      expect(answers.every((a) => a.status === 204)).toBe(true);

      const results = await Promise.all(pauses.map((p) => ex.ended(p.execution_id, 10_000)));
      results.forEach((r, i) => {
        expect(r).toEqual({
          execution_id: pauses[i].execution_id,
          status: 'completed',
          result: { value: `Hello answer-for-${inputs[i]} (${inputs[i]})` },
        });
      });
    } finally {
      await t.close();
    }
  });
});
