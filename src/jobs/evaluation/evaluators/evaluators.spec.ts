import { plainToInstance } from 'class-transformer';
import {
  ContainsConfig,
  ExactMatchConfig,
  LlmJudgeConfig,
  RegexConfig,
  TrajectoryConfig,
} from '../../../config/eval.schema';
import { OutboundPolicy } from '../../../core/outbound/outbound-policy';
import { buildLlm } from '../../../runtime/llm/llm-builder';
import type { LlmClient } from '../../../runtime/llm/llm-client';
import { FakeLlm, reply } from '../../../../test/utils/fake-llm';
import { averageScore, type EvalInputItem, type Evaluator } from './evaluator';
import { evaluateItems } from './evaluators';
import { llmJudgeEvaluator, parseVerdict } from './llm-judge.evaluator';
import { regexEvaluator } from './regex.evaluator';
import { RegexSandbox } from './regex-sandbox';
import { containsEvaluator, exactMatchEvaluator } from './text-match.evaluators';
import { trajectoryEvaluator } from './trajectory.evaluator';

const item = (overrides: Partial<EvalInputItem> = {}): EvalInputItem => ({
  id: 'q1',
  input_obj: 'What is the capital of France?',
  expected_output_obj: 'Paris',
  output_obj: 'Paris',
  trajectory: [],
  ...overrides,
});
const signal = new AbortController().signal;
/** Whose turn a match takes in the regex workers. */
const CALLER = 'user:test';
const score = async (evaluator: Evaluator, overrides: Partial<EvalInputItem>) =>
  (await evaluator.evaluate(item(overrides), signal, CALLER)).score;
const config = <T extends object>(cls: new () => T, fields: Record<string, unknown>) =>
  Object.assign(plainToInstance(cls, {}), fields);

describe('exact_match', () => {
  const strict = exactMatchEvaluator('exact', config(ExactMatchConfig, { _type: 'exact_match' }));
  it('scores 1 for the same text, white space around and between words aside', async () => {
    expect(await score(strict, { output_obj: '  Paris \n' })).toBe(1);
    expect(await score(strict, { expected_output_obj: 'New  York', output_obj: 'New York' })).toBe(1);
  });
  it('is case sensitive unless told otherwise, and takes a result object as its answer', async () => {
    expect(await score(strict, { output_obj: 'paris' })).toBe(0);
    const loose = exactMatchEvaluator('e', config(ExactMatchConfig, { case_sensitive: false }));
    expect(await score(loose, { output_obj: 'PARIS' })).toBe(1);
    expect(await score(strict, { output_obj: { value: 'Paris' } })).toBe(1);
  });
  it('without whitespace normalisation compares the texts as they are', async () => {
    const raw = exactMatchEvaluator('e', config(ExactMatchConfig, { normalize_whitespace: false }));
    expect(await score(raw, { output_obj: 'Paris ' })).toBe(0);
  });
});

describe('contains', () => {
  const contains = containsEvaluator('c', config(ContainsConfig, {}));
  it('scores 1 when the expected text is in the answer, case aside by default', async () => {
    expect(await score(contains, { output_obj: 'It is PARIS.' })).toBe(1);
    expect(await score(contains, { output_obj: 'It is Lyon.' })).toBe(0);
  });
  it('with a list of expected texts scores the share found and names the missing ones', async () => {
    const result = await contains.evaluate(
      item({ expected_output_obj: ['Lisbon', 'Porto', 'Faro'], output_obj: 'Lisbon, then Porto' }),
      signal,
      CALLER,
    );
    expect(result.score).toBeCloseTo(2 / 3);
    expect(result.reasoning).toBe('the answer lacks "Faro"');
  });
});

describe('regex', () => {
  const sandbox = new RegexSandbox();
  afterAll(() => sandbox.close());
  const regex = (fields: Record<string, unknown>) =>
    regexEvaluator('r', config(RegexConfig, fields), sandbox);

  it('matches the configured pattern with its flags', async () => {
    expect(await score(regex({ pattern: '^paris$', flags: 'i' }), { output_obj: 'Paris' })).toBe(1);
    expect(await score(regex({ pattern: '^paris$' }), { output_obj: 'Paris' })).toBe(0);
  });
  it("reads the item's expected answer as the pattern when none is configured", async () => {
    expect(await score(regex({}), { expected_output_obj: '\\d{4}', output_obj: 'In 1889.' })).toBe(1);
  });
  it('refuses an invalid, an over-long or an empty pattern, and an over-long answer', async () => {
    const evaluator = regex({ max_input_chars: 10 });
    await expect(evaluator.evaluate(item({ expected_output_obj: '(' }), signal, CALLER)).rejects.toThrow(
      'invalid pattern',
    );
    await expect(
      evaluator.evaluate(item({ expected_output_obj: 'a'.repeat(1001) }), signal, CALLER),
    ).rejects.toThrow('longer than 1000 characters');
    await expect(evaluator.evaluate(item({ expected_output_obj: '' }), signal, CALLER)).rejects.toThrow(
      'no pattern',
    );
    await expect(evaluator.evaluate(item({ output_obj: 'x'.repeat(11) }), signal, CALLER)).rejects.toThrow(
      'more than max_input_chars (10)',
    );
  });
  it('stops a pattern that backtracks past its time limit, and the next one still runs', async () => {
    const slow = regex({ pattern: '^(a|aa)+$', timeout_ms: 100 });
    await expect(slow.evaluate(item({ output_obj: `${'a'.repeat(60)}b` }), signal, CALLER)).rejects.toThrow(
      'took longer than 100 ms',
    );
    expect(await score(regex({ pattern: 'b$' }), { output_obj: 'ab' })).toBe(1);
  });
});

describe('trajectory', () => {
  const step = (event_type: string, name: string) => ({ payload: { event_type, name } });
  const ran = [
    step('TOOL_START', 'search'),
    step('TOOL_END', 'search'),
    step('LLM_END', 'model'),
    step('TOOL_END', 'book'),
  ];
  const trajectory = (fields: Record<string, unknown>) =>
    trajectoryEvaluator('t', config(TrajectoryConfig, fields));

  it('reads the tools called from TOOL_END steps (or plain names), in order', async () => {
    const result = await trajectory({ order: 'exact', expected_tools: ['search', 'book'] }).evaluate(
      item({ trajectory: ran }),
      signal,
      CALLER,
    );
    expect(result).toEqual({
      id: 'q1',
      score: 1,
      reasoning: 'expected search → book (exact); called search → book',
    });
    expect(
      await score(trajectory({ order: 'exact' }), {
        trajectory: ['book', 'search'],
        expected_trajectory: ['search', 'book'],
      }),
    ).toBe(0);
  });
  it('in_order gives credit for expected tools in order, others allowed between', async () => {
    const inOrder = trajectory({ order: 'in_order' });
    expect(
      await score(inOrder, {
        trajectory: ['search', 'weather', 'book'],
        expected_trajectory: ['search', 'book'],
      }),
    ).toBe(1);
    expect(
      await score(inOrder, { trajectory: ['book', 'search'], expected_trajectory: ['search', 'book'] }),
    ).toBe(0.5);
  });
  it('any_order counts each expected call once', async () => {
    const anyOrder = trajectory({ order: 'any_order' });
    expect(
      await score(anyOrder, { trajectory: ['book', 'search'], expected_trajectory: ['search', 'book'] }),
    ).toBe(1);
    expect(await score(anyOrder, { trajectory: ['search'], expected_trajectory: ['search', 'search'] })).toBe(
      0.5,
    );
  });
  it('without expected tools it cannot score', async () => {
    await expect(trajectory({}).evaluate(item({ trajectory: ['search'] }), signal, CALLER)).rejects.toThrow(
      'no expected tools',
    );
  });
});

describe('llm_judge', () => {
  let llm: FakeLlm;
  let client: LlmClient;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    const built = buildLlm(
      'judge',
      { _type: 'openai', base_url: llm.url, model_name: 'm', max_retries: 0 },
      {},
    );
    if (!('llm' in built)) throw new Error('judge not built');
    client = built.llm;
  });
  afterAll(() => llm.close());
  afterEach(() => llm.reset());
  const judge = (fields: Record<string, unknown> = {}, llm: LlmClient = client) =>
    llmJudgeEvaluator('j', config(LlmJudgeConfig, { llm_name: 'judge', ...fields }), { llm });
  /** The judge as an evaluation file declares it: built to pass `policy` on every connection. */
  const declaredUnder = (policy: OutboundPolicy) => {
    const built = buildLlm(
      'judge',
      { _type: 'openai', base_url: llm.url, model_name: 'm', max_retries: 0 },
      {},
      policy,
    );
    if (!('llm' in built)) throw new Error('judge not built');
    return built.llm;
  };

  it("returns the model's score and reasoning, and sends the rubric, question, reference and answer", async () => {
    llm.script(reply.text('Verdict: {"score": 0.9, "reasoning": "Correct."} Done.'));
    expect(await judge({ rubric: 'Be strict.' }).evaluate(item(), signal, CALLER)).toEqual({
      id: 'q1',
      score: 0.9,
      reasoning: 'Correct.',
    });
    const [system, user] = llm.requests[0].body.messages;
    expect(system.content).toContain('Rubric: Be strict.');
    expect(user.content).toBe(
      'Question:\nWhat is the capital of France?\n\nReference answer:\nParis\n\nAnswer to grade:\nParis',
    );
  });
  it('cuts texts longer than max_chars before sending them', async () => {
    llm.script(reply.text('{"score": 0, "reasoning": "x"}'));
    await judge({ max_chars: 100 }).evaluate(item({ output_obj: 'y'.repeat(5000) }), signal, CALLER);
    expect(llm.lastMessage(0).content).toContain(`${'y'.repeat(100)}\n[… cut: 4900 more characters]`);
  });
  it('a model that will not answer the format is an error, not a score', async () => {
    for (const text of ['Looks right to me', '{"score": 7}', '{"score": "high"}', '{not json}']) {
      expect(() => parseVerdict(text)).toThrow('the judge did not answer');
    }
  });
  it('a model an evaluation file declares must pass the outbound policy', async () => {
    await expect(
      judge({}, declaredUnder(new OutboundPolicy())).evaluate(item(), signal, CALLER),
    ).rejects.toThrow('general.outbound.allow_hosts');
    expect(llm.requests).toHaveLength(0);
    llm.script(reply.text('{"score": 1, "reasoning": "ok"}'));
    const allowed = await judge(
      {},
      declaredUnder(new OutboundPolicy({ allow_hosts: ['127.0.0.1'] })),
    ).evaluate(item(), signal, CALLER);
    expect(allowed.score).toBe(1);
  });
});

describe('evaluating a list of items', () => {
  it('averages the scores it has; an item that throws gets its error and no score', async () => {
    const evaluator = trajectoryEvaluator('t', config(TrajectoryConfig, { order: 'in_order' }));
    const output = await evaluateItems(
      evaluator,
      [
        item({ id: 1, trajectory: ['a'], expected_trajectory: ['a'] }),
        item({ id: 2, trajectory: [], expected_trajectory: ['a', 'b'] }),
        item({ id: 3, trajectory: ['a'] }),
      ],
      signal,
      2,
      CALLER,
    );
    expect(output.average_score).toBe(0.5);
    expect(output.eval_output_items[2]).toEqual({
      id: 3,
      score: null,
      reasoning: null,
      error: expect.stringContaining('no expected tools'),
    });
  });
  it('counts true as 1 and false as 0, and has no average without scores', () => {
    expect(
      averageScore([
        { id: 1, score: true, reasoning: '' },
        { id: 2, score: false, reasoning: '' },
      ]),
    ).toBe(0.5);
    expect(averageScore([{ id: 1, score: null, reasoning: '' }])).toBeNull();
  });
});
