import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

/** The served config: an echo workflow, a judge model and one evaluator of each type. */
function servedYaml(llm: FakeLlm, frontEnd: Record<string, unknown> = {}): string {
  return stringify({
    general: { front_end: frontEnd },
    llms: {
      judge: { _type: 'openai', base_url: llm.url, model_name: 'judge-model', api_key: 'k', max_retries: 0 },
    },
    workflow: { _type: 'echo' },
    eval: {
      evaluators: {
        exact: { _type: 'exact_match' },
        mentions: { _type: 'contains' },
        number: { _type: 'regex', pattern: '^\\d+(\\.\\d+)?$' },
        pattern: { _type: 'regex', timeout_ms: 1000 },
        tools: { _type: 'trajectory', order: 'in_order' },
        judge: { _type: 'llm_judge', llm_name: 'judge', rubric: 'Same city means correct.' },
      },
    },
  });
}

const item = (overrides: Record<string, unknown> = {}) => ({
  id: 'q1',
  input_obj: 'What is the capital of France?',
  expected_output_obj: 'Paris',
  output_obj: 'Paris',
  ...overrides,
});

const toolEnd = (name: string) => ({
  parent_id: 'root',
  function_ancestry: { function_id: 'f', function_name: 'workflow', parent_id: null, parent_name: null },
  payload: { event_type: 'TOOL_END', name, event_timestamp: 1, UUID: name },
});

describe('POST /evaluate/item', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const evaluate = (body: unknown) => postJson(`${t.url}/evaluate/item`, body);

  beforeAll(async () => {
    llm = await FakeLlm.start();
    t = await startApp(servedYaml(llm));
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });
  afterEach(() => llm.reset());

  it("scores an item with a configured evaluator: NeMo Agent Toolkit's EvaluateItemResponse", async () => {
    const res = await evaluate({ item: item(), evaluator_name: 'exact' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      result: { id: 'q1', score: 1, reasoning: 'the answer equals the expected answer' },
      error: null,
    });
    const miss = await evaluate({ item: item({ output_obj: 'Lyon' }), evaluator_name: 'exact' });
    expect(miss.json).toMatchObject({
      success: true,
      result: { score: 0, reasoning: 'expected "Paris", got "Lyon"' },
    });
  });

  it('contains, regex and trajectory score what their names say', async () => {
    const contains = await evaluate({
      item: item({ output_obj: 'It is paris, of course.' }),
      evaluator_name: 'mentions',
    });
    expect(contains.json.result).toMatchObject({ score: 1 });
    const number = await evaluate({ item: item({ output_obj: '42.5' }), evaluator_name: 'number' });
    expect(number.json.result).toMatchObject({ score: 1 });
    const notNumber = await evaluate({ item: item({ output_obj: '42 apples' }), evaluator_name: 'number' });
    expect(notNumber.json.result).toMatchObject({ score: 0 });
    const tools = await evaluate({
      item: item({
        trajectory: [toolEnd('search'), toolEnd('calculator'), toolEnd('weather')],
        expected_trajectory: ['search', 'weather'],
      }),
      evaluator_name: 'tools',
    });
    expect(tools.json.result).toEqual({
      id: 'q1',
      score: 1,
      reasoning: 'expected search → weather (in order); called search → calculator → weather',
    });
    const outOfOrder = await evaluate({
      item: item({ trajectory: ['weather', 'search'], expected_trajectory: ['search', 'weather'] }),
      evaluator_name: 'tools',
    });
    expect(outOfOrder.json.result).toMatchObject({ score: 0.5 });
  });

  it('llm_judge asks the configured model with the rubric and returns its score and reasoning', async () => {
    llm.script(reply.text('{"score": 0.75, "reasoning": "Right city, but vague."}'));
    const res = await evaluate({
      item: item({ output_obj: 'Somewhere near Paris' }),
      evaluator_name: 'judge',
    });
    expect(res.json).toEqual({
      success: true,
      result: { id: 'q1', score: 0.75, reasoning: 'Right city, but vague.' },
      error: null,
    });
    const sent = llm.requests[0].body;
    expect(sent.model).toBe('judge-model');
    expect(sent.messages[0].content).toContain('Same city means correct.');
    expect(sent.messages[1].content).toContain('What is the capital of France?');
    expect(sent.messages[1].content).toContain('Reference answer:\nParis');
    expect(sent.messages[1].content).toContain('Answer to grade:\nSomewhere near Paris');
  });

  it('an evaluator that throws answers 200 with success: false and the error', async () => {
    llm.script(reply.text('I think it is fine.'));
    const res = await evaluate({ item: item(), evaluator_name: 'judge' });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(false);
    expect(res.json.result).toBeNull();
    expect(res.json.error).toMatch(/^Evaluation failed: the judge did not answer with \{"score"/);

    const noTools = await evaluate({ item: item(), evaluator_name: 'tools' });
    expect(noTools.json).toMatchObject({
      success: false,
      error: expect.stringContaining('no expected tools'),
    });
  });

  it('a catastrophic pattern is stopped at its time limit and never holds the server', async () => {
    const pending = evaluate({
      item: item({ expected_output_obj: '^(a+)+$', output_obj: `${'a'.repeat(40)}!` }),
      evaluator_name: 'pattern',
    });
    const order: string[] = [];
    void pending.then(() => order.push('evaluation'));
    const health = await fetch(`${t.url}/health`);
    order.push('health');
    expect(health.status).toBe(200);
    const res = await pending;
    expect(order).toEqual(['health', 'evaluation']);
    expect(res.json).toMatchObject({
      success: false,
      error: expect.stringContaining('took longer than 1000 ms'),
    });
    // The sandbox starts again for the next pattern.
    const next = await evaluate({
      item: item({ expected_output_obj: '^P', output_obj: 'Paris' }),
      evaluator_name: 'pattern',
    });
    expect(next.json.result).toMatchObject({ score: 1 });
  });

  it('an unknown evaluator is 404 naming the available ones', async () => {
    const res = await evaluate({ item: item(), evaluator_name: 'nope' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      detail: `Evaluator 'nope' not found. Available evaluators: ["exact","mentions","number","pattern","tools","judge"]`,
    });
  });

  it.each([
    ['no item', { evaluator_name: 'exact' }, ['body', 'item']],
    [
      'an item without its id',
      { item: { input_obj: 'q', expected_output_obj: 'a' }, evaluator_name: 'exact' },
      ['body', 'item', 'id'],
    ],
    [
      'a trajectory that is not a list',
      { item: item({ trajectory: 'search' }), evaluator_name: 'tools' },
      ['body', 'item', 'trajectory'],
    ],
    [
      'an evaluator name that is not a string',
      { item: item(), evaluator_name: 7 },
      ['body', 'evaluator_name'],
    ],
  ])('a bad body (%s) is 422 naming the field', async (_what, body, loc) => {
    const res = await evaluate(body);
    expect(res.status).toBe(422);
    expect((res.json.detail as { loc: unknown[] }[]).map((d) => d.loc)).toContainEqual(loc);
  });

  it('a body that is not JSON is 422', async () => {
    const res = await postJson(`${t.url}/evaluate/item`, '{"item": ');
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([expect.objectContaining({ type: 'json_invalid' })]);
  });
});

describe('POST /evaluate/item, configured', () => {
  let llm: FakeLlm;
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterAll(() => llm.close());

  it('a served config without an eval section has no evaluators', async () => {
    const t = await startApp('workflow:\n  _type: echo\n');
    try {
      const res = await postJson(`${t.url}/evaluate/item`, { item: item(), evaluator_name: 'exact' });
      expect(res.status).toBe(404);
      expect(res.json.detail).toBe("Evaluator 'exact' not found. Available evaluators: []");
    } finally {
      await t.close();
    }
  });

  it('serves at front_end.evaluate_item.path, and not at all when it is null', async () => {
    const moved = await startApp(
      servedYaml(llm, { evaluate_item: { method: 'POST', path: '/grading/one' } }),
    );
    const removed = await startApp(servedYaml(llm, { evaluate_item: { method: 'POST', path: null } }));
    try {
      const there = await postJson(`${moved.url}/grading/one`, { item: item(), evaluator_name: 'exact' });
      expect(there.json).toMatchObject({ success: true, result: { score: 1 } });
      expect(
        (await postJson(`${moved.url}/evaluate/item`, { item: item(), evaluator_name: 'exact' })).status,
      ).toBe(404);
      expect(
        (await postJson(`${removed.url}/evaluate/item`, { item: item(), evaluator_name: 'exact' })).status,
      ).toBe(404);
    } finally {
      await moved.close();
      await removed.close();
    }
  });
});

describe("POST /evaluate/item: one caller's catastrophic patterns do not delay another's item", () => {
  let t: TestApp;
  /** Each caller is an anonymous client at its own address (the proxy on loopback says which). */
  const from = (address: string, body: unknown) =>
    fetch(`${t.url}/evaluate/item`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    });
  const catastrophic = item({ expected_output_obj: '^(a+)+$', output_obj: `${'a'.repeat(40)}!` });

  beforeAll(async () => {
    t = await startApp(
      stringify({
        general: { front_end: { trust_proxy: ['loopback'] } },
        workflow: { _type: 'echo' },
        eval: {
          evaluators: {
            number: { _type: 'regex', pattern: '^\\d+(\\.\\d+)?$' },
            // Long enough that the whole flood arrives while its first match runs.
            pattern: { _type: 'regex', timeout_ms: 5000 },
          },
        },
      }),
    );
  });
  afterAll(() => t.close());

  it('the flood gets 429s past its one running and one waiting match; the other item is scored meanwhile', async () => {
    // Both workers loaded first: the test compares turns, not start-up times.
    await Promise.all(
      ['192.0.2.1', '192.0.2.2'].map((a) => from(a, { item: item(), evaluator_name: 'number' })),
    );
    const ended: string[] = [];
    const flood = Array.from({ length: 30 }, async () => {
      const res = await from('203.0.113.7', { item: catastrophic, evaluator_name: 'pattern' });
      ended.push(`flood ${res.status}`);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    });
    const mine = await from('198.51.100.9', { item: item({ output_obj: '42' }), evaluator_name: 'number' });
    ended.push('mine');
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ success: true, result: { score: 1 } });

    const answers = await Promise.all(flood);
    const refused = answers.filter((a) => a.status === 429);
    const ran = answers.filter((a) => a.status === 200);
    // general.sandbox defaults: the flooder holds one worker and one place in line.
    expect(ran).toHaveLength(2);
    expect(refused).toHaveLength(28);
    expect(refused[0]).toMatchObject({
      retryAfter: '1',
      body: { detail: expect.stringContaining('too many regular expressions are waiting') },
    });
    expect(ran.map((a) => a.body)).toEqual([
      expect.objectContaining({ success: false, error: expect.stringContaining('took longer than 5000 ms') }),
      expect.objectContaining({ success: false, error: expect.stringContaining('took longer than 5000 ms') }),
    ]);
    // The other caller did not wait behind the flood's line: its item was scored before the match the
    // flood had waiting was even started (it starts when the first is stopped, and runs its full time).
    expect(ended.indexOf('mine')).toBeLessThan(ended.lastIndexOf('flood 200'));
  });
});
