import { answerOf, MAX_TOOL_CALLS, StreamedAnswer, usageOf } from './llm-answer';

const completion = (message: unknown, usage?: unknown) => ({ choices: [{ index: 0, message }], usage });
const call = (name: string, args: unknown, extra: object = {}) => ({
  id: 'c1',
  type: 'function',
  function: { name, arguments: args },
  ...extra,
});

describe('answerOf: a whole chat completion as this server reads it', () => {
  it('reads text, nothing, and a list of text parts as the answer text', () => {
    expect(answerOf(completion({ content: 'hi' })).content).toBe('hi');
    expect(answerOf(completion({ content: null })).content).toBe('');
    expect(answerOf(completion({ content: [{ type: 'text', text: 'a' }, { text: 'b' }] })).content).toBe(
      'ab',
    );
  });

  it.each([
    [{ content: { status: 'interaction_required' } }, "its answer's content is an object, not text"],
    [{ content: 12345 }, "its answer's content is a number, not text"],
    [{ content: [{ type: 'image_url' }] }, "its answer's content is a list, not text"],
    [{ content: '', tool_calls: { a: 1 } }, 'its tool_calls is an object, not a list'],
    [{ content: '', tool_calls: [null] }, 'its tool call 0 is null, not an object'],
    [{ content: '', tool_calls: [{ id: 'x', type: 'function' }] }, 'its tool call 0 names no function'],
    [
      { content: '', tool_calls: [{ type: 'custom', custom: {} }] },
      'its tool call 0 is of type "custom": only "function" calls are supported',
    ],
    [{ content: '', tool_calls: [call('f', 7)] }, 'its tool call 0 has arguments that are a number'],
  ])('refuses a message %j, naming what is wrong', (message, problem) => {
    expect(() => answerOf(completion(message))).toThrow(problem);
  });

  it.each([
    [null, 'its answer is null, not a chat completion'],
    [{ choices: [] }, 'its answer holds no choice'],
    [{ choices: 'nope' }, 'its answer holds no choice'],
    [{ choices: [{ index: 0 }] }, "its answer's first choice holds no message"],
  ])('refuses a completion %j', (body, problem) => {
    expect(() => answerOf(body)).toThrow(problem);
  });

  it('takes function calls, with arguments sent as an object written as their JSON', () => {
    const answer = answerOf(
      completion({ content: null, tool_calls: [call('f', { a: 1 }), call('g', '{}', { type: undefined })] }),
    );
    expect(answer.toolCalls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
      { id: 'c1', type: 'function', function: { name: 'g', arguments: '{}' } },
    ]);
  });

  it(`refuses more than ${MAX_TOOL_CALLS} tool calls in one answer`, () => {
    const calls = Array.from({ length: MAX_TOOL_CALLS + 1 }, () => call('f', '{}'));
    expect(() => answerOf(completion({ tool_calls: calls }))).toThrow(
      `it made ${MAX_TOOL_CALLS + 1} tool calls`,
    );
  });
});

describe('usageOf: token counts as reported', () => {
  it('keeps whole numbers from 0 and leaves the rest out (a string was concatenated: "0lots")', () => {
    expect(usageOf({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
    });
    expect(usageOf({ prompt_tokens: 'lots', completion_tokens: -5, total_tokens: 1e308 })).toBeNull();
    expect(usageOf({ prompt_tokens: 2, completion_tokens: 1.5 })).toEqual({
      prompt_tokens: 2,
      completion_tokens: 0,
      total_tokens: 2,
    });
    expect(usageOf(undefined)).toBeNull();
  });
});

describe('StreamedAnswer: a streamed answer put together chunk by chunk', () => {
  const chunk = (delta: unknown, index: unknown = 0) => ({ choices: [{ index, delta }] });

  it('puts text and tool calls together as the SDK would, reading only the first choice', () => {
    const answer = new StreamedAnswer();
    expect(answer.add(chunk({ role: 'assistant', content: 'Hel' }))).toBe('Hel');
    expect(answer.add(chunk({ content: 'lo' }))).toBe('lo');
    expect(answer.add(chunk({ content: 'other choice' }, 1))).toBe('');
    expect(answer.add(chunk({ content: 'far away' }, 1e9))).toBe('');
    answer.add(
      chunk({
        tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{' } }],
      }),
    );
    answer.add(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }));
    answer.add(chunk({ tool_calls: [{ index: 1, function: { arguments: '}' } }] }));
    answer.add({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    expect(answer.inToolCall).toBe(true);
    expect(answer.answer()).toEqual({
      content: 'Hello',
      toolCalls: [
        { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
  });

  it.each([1e9, -1, '0', 1.5, MAX_TOOL_CALLS])('refuses a tool call with index %j, at once', (index) => {
    const answer = new StreamedAnswer();
    const started = performance.now();
    expect(() => answer.add(chunk({ tool_calls: [{ index, function: { name: 'f' } }] }))).toThrow(
      /it streamed a tool call with index/,
    );
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('refuses content that is not text, and tool_calls that are not a list', () => {
    expect(() => new StreamedAnswer().add(chunk({ content: { a: 1 } }))).toThrow(
      'it streamed content that is an object, not text',
    );
    expect(() => new StreamedAnswer().add(chunk({ tool_calls: { a: 1 } }))).toThrow(
      'it streamed tool_calls that are an object, not a list',
    );
  });

  it('skips chunks without a first choice or a delta', () => {
    const answer = new StreamedAnswer();
    for (const c of [{}, { choices: 'x' }, { choices: [null] }, chunk(null)]) expect(answer.add(c)).toBe('');
    expect(answer.answer()).toEqual({ content: '', toolCalls: [], usage: null });
  });

  it('refuses a stream that never carried the first choice (it was a silently empty answer)', () => {
    const answer = new StreamedAnswer();
    for (const c of [{ choices: [] }, {}, chunk({ content: 'other' }, 1)]) answer.add(c);
    expect(() => answer.answer()).toThrow('its streamed answer held no choice');
  });
});
