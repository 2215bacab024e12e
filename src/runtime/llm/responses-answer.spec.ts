import { checkedResponse } from './responses-answer';

const call = (extra: object) => ({
  type: 'function_call',
  name: 'f',
  call_id: 'c1',
  arguments: '{}',
  ...extra,
});

describe('checkedResponse: a Responses API answer as responses_api_agent reads it', () => {
  it('takes a well-formed answer, arguments sent as an object written as their JSON', () => {
    const answer = checkedResponse({
      output: [
        { type: 'reasoning', summary: [] },
        { type: 'message', content: [{ type: 'output_text', text: 'hi' }] },
        call({ arguments: { a: 1 } }),
      ],
      usage: {
        input_tokens: 3,
        output_tokens: 4,
        total_tokens: 7,
        input_tokens_details: { cached_tokens: 0 },
      },
    });
    expect(answer.output[2]).toMatchObject({ arguments: '{"a":1}' });
    expect(answer.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
  });

  it.each([
    [null, 'its answer is null, not a response'],
    [{ output: {} }, "its answer's output is an object, not a list"],
    [{ output: [7] }, 'its output item 0 has no type'],
    [{ output: [{ type: 'message', content: 'x' }] }, 'its output item 0 (a message) has no content list'],
    [{ output: [call({ name: 1 })] }, 'its function call (output item 0) names no function'],
    [{ output: [call({ call_id: undefined })] }, 'its function call (output item 0) has no call_id'],
    [
      { output: [call({ arguments: 5 })] },
      'its function call (output item 0) has arguments that are a number',
    ],
  ])('refuses %j', (value, problem) => {
    expect(() => checkedResponse(value)).toThrow(problem);
  });

  it('leaves token counts that are no whole numbers out', () => {
    const answer = checkedResponse({
      output: [],
      usage: { input_tokens: 'x', output_tokens: -1, total_tokens: 2 },
    });
    expect(answer.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 2 });
  });
});
