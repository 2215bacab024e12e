import { afterTrace, dataOf, linesWith, postJson, postStream } from '../utils/sse';
import { ECHO_YAML, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

describe('generate routes with the echo workflow', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each(['/v1/workflow', '/generate'])('POST %s answers {"value": input}', async (path) => {
    const res = await postJson(`${t.url}${path}`, { message: 'hello  there, world ' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({ value: 'hello  there, world ' });
  });

  it.each(['/v1/workflow/stream', '/generate/stream', '/v1/workflow/full', '/generate/full'])(
    'POST %s streams word chunks whose concatenation is the input',
    async (path) => {
      const input = '  leading and   inner spaces kept ';
      const res = await postStream(`${t.url}${path}`, { message: input });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
      expect(res.headers.get('x-accel-buffering')).toBe('no');
      const values = dataOf(res).map((d) => (d as { value: string }).value);
      expect(values.length).toBeGreaterThan(4);
      expect(values.join('')).toBe(input);
      // interactive (versioned) streams number every frame so a dropped client can resume
      const framing = path.startsWith('/v1/') ? /^(id: \d+|data: .*)$/ : /^data: /;
      expect(afterTrace(res).every((l) => framing.test(l))).toBe(true);
      expect(res.text).not.toContain('[DONE]');
    },
  );
  // 422s for bad bodies: src/workflows/generate.controller.spec.ts (slim app).
});

const STEPS_YAML = scriptedYaml(
  `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { answer: 42 } }
- step: { name: note, kind: custom, payload: hidden by default }
- stream: { text: 'one two three' }`,
  'Done: {{input}}',
);

describe('generate routes with a scripted workflow', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(STEPS_YAML)));
  afterAll(() => t.close());

  it('returns the rendered output template', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: 'Done: hi' });
  });

  it('accepts a conversation as input', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, {
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'second' }] },
      ],
    });
    expect(res.json).toEqual({ value: 'Done: second' });
  });

  it('/stream sends step-adapted tool steps, then streamed chunks, then the template last', async () => {
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'hi' });
    const steps = linesWith(res, 'intermediate_data') as Record<string, string>[];
    // default step adaptor mode: TOOL steps shown, CUSTOM hidden
    expect(steps).toHaveLength(2);
    expect(steps[0]).toMatchObject({ type: 'markdown', name: 'Tool: lookup', parent_id: 'root' });
    expect(steps[0].payload).toBe('**Input:**\n```json\n{"q":"hi"}\n```');
    expect(steps[1].id).toBe(steps[0].id);
    expect(steps[1].payload).toBe(
      '**Input:**\n```json\n{"q":"hi"}\n```\n\n**Output:**\n```json\n{"answer":42}\n```',
    );
    const values = dataOf(res).map((d) => (d as { value: string }).value);
    expect(values).toEqual(['one ', 'two ', 'three', 'Done: hi']);
    // steps come before output, in order
    expect(res.lines.findIndex((l) => l.startsWith('data:'))).toBeGreaterThan(
      res.lines.findLastIndex((l) => l.startsWith('intermediate_data:')),
    );
  });

  it('/full sends raw steps with their NAT payload as a JSON string', async () => {
    const res = await postStream(`${t.url}/v1/workflow/full`, { input_message: 'hi' });
    const steps = linesWith(res, 'intermediate_data') as Record<string, string>[];
    expect(steps.map((s) => s.type)).toEqual(['TOOL_START', 'TOOL_END', 'CUSTOM_START', 'CUSTOM_END']);
    const payload = JSON.parse(steps[1].payload) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual([
      'event_type',
      'event_timestamp',
      'span_event_timestamp',
      'framework',
      'name',
      'tags',
      'metadata',
      'data',
      'usage_info',
      'UUID',
    ]);
    expect(payload).toMatchObject({
      event_type: 'TOOL_END',
      name: 'lookup',
      data: { input: { q: 'hi' }, output: { answer: 42 } },
    });
    expect(payload.UUID).toBe(steps[1].id);
    expect(typeof payload.span_event_timestamp).toBe('number');
  });

  it('/full?filter_steps= keeps only the listed types', async () => {
    const res = await postStream(`${t.url}/generate/full?filter_steps=TOOL_END,CUSTOM_START`, {
      input_message: 'hi',
    });
    expect((linesWith(res, 'intermediate_data') as { type: string }[]).map((s) => s.type)).toEqual([
      'TOOL_END',
      'CUSTOM_START',
    ]);
  });

  it('/full?filter_steps=none suppresses every step but keeps the output', async () => {
    const res = await postStream(`${t.url}/v1/workflow/full?filter_steps=none`, { input_message: 'hi' });
    expect(linesWith(res, 'intermediate_data')).toEqual([]);
    expect(dataOf(res)).toHaveLength(4);
  });
});

describe('step adaptor modes', () => {
  it('custom mode shows only the configured event types', async () => {
    const t = await startApp(
      STEPS_YAML.replace(
        'workflow:',
        'general:\n  front_end:\n    step_adaptor: { mode: custom, custom_event_types: [CUSTOM_END] }\nworkflow:',
      ),
    );
    try {
      const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'hi' });
      const steps = linesWith(res, 'intermediate_data') as Record<string, string>[];
      expect(steps).toHaveLength(1);
      expect(steps[0].name).toBe('CUSTOM_END');
      expect(steps[0].payload).toContain('hidden by default');
    } finally {
      await t.close();
    }
  });

  it('off mode sends no steps', async () => {
    const t = await startApp(
      STEPS_YAML.replace('workflow:', 'general:\n  front_end:\n    step_adaptor: { mode: off }\nworkflow:'),
    );
    try {
      const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'hi' });
      expect(linesWith(res, 'intermediate_data')).toEqual([]);
      expect(dataOf(res)).toHaveLength(4);
    } finally {
      await t.close();
    }
  });
});
