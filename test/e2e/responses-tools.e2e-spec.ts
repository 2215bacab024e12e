import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { reply, type FakeLlm } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm, CALCULATOR } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

function sdkFor(t: TestApp): OpenAI {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'nvapi-pat', maxRetries: 0 });
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function functionCall(response: OpenAI.Responses.Response): OpenAI.Responses.ResponseFunctionToolCall {
  const call = response.output.at(-1)!;
  if (call.type !== 'function_call') throw new Error(`not a function call: ${call.type}`);
  return call;
}

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

/** What the client's tool answers: JSON with a `type`, which must reach the model as it is. */
const FORECAST = '{"type": "forecast", "city": "Oslo", "sky": "sunny", "celsius": 21}';

describe("a client's function tools: the agent's call ends the response, the client's output goes back to the model", () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (l) => agentYaml(l, { _type: 'tool_calling_agent', tool_names: ['calculator'] }, CALCULATOR),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it('whole: a function_call item, then previous_response_id + function_call_output, and the agent answers', async () => {
    llm.script(
      reply.tools([{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      reply.text('Sunny in Oslo, 21 °C.'),
    );
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'Weather in Oslo?', tools: [weather] });
    // The model was offered the client's tool beside the agent's own.
    const offered = llm.requests[0].body.tools!.map((tool) => tool.function);
    expect(offered.map((f) => f.name)).toEqual(['calculator', 'get_weather']);
    expect(offered[1]).toEqual({
      name: 'get_weather',
      description: weather.description,
      parameters: weather.parameters,
    });
    expect(first.status).toBe('completed');
    expect(first.output).toHaveLength(1);
    const call = functionCall(first);
    expect(call).toEqual({
      type: 'function_call',
      id: expect.stringMatching(/^fc_/) as string,
      call_id: expect.any(String) as string,
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    });

    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: FORECAST }],
      tools: [weather],
    });
    expect(second.status).toBe('completed');
    expect(second.output_text).toBe('Sunny in Oslo, 21 °C.');
    const [asked, answered] = llm.requests[1].body.messages.slice(-2);
    expect(asked).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_w1', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    });
    expect(answered).toEqual({ role: 'tool', tool_call_id: 'call_w1', content: FORECAST });
    // The same answer sent again (a client's retry) shows what followed; the agent does not run twice.
    const again = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'something else' }],
    });
    expect(again.output_text).toBe('Sunny in Oslo, 21 °C.');
    expect(llm.requests).toHaveLength(2);
  });

  it('streamed: the function_call item goes out as OpenAI sends it, and the answer streams in the next response', async () => {
    llm.script(
      reply.tools([{ id: 'call_w2', name: 'get_weather', arguments: { city: 'Bergen' } }]),
      reply.text('Rain in Bergen.'),
    );
    const sdk = sdkFor(t);
    const events = await collect(
      await sdk.responses.create({ model: 'm', input: 'Bergen?', tools: [weather], stream: true }),
    );
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual([...events.keys()]);
    const [, , added, delta, argsDone, itemDone, completed] = events as [
      unknown,
      unknown,
      OpenAI.Responses.ResponseOutputItemAddedEvent,
      OpenAI.Responses.ResponseFunctionCallArgumentsDeltaEvent,
      OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent,
      OpenAI.Responses.ResponseOutputItemDoneEvent,
      OpenAI.Responses.ResponseCompletedEvent,
    ];
    const args = '{"city":"Bergen"}';
    expect(added).toMatchObject({
      output_index: 0,
      item: { type: 'function_call', name: 'get_weather', arguments: '', status: 'in_progress' },
    });
    const itemId = added.item.id;
    expect(delta).toMatchObject({ item_id: itemId, output_index: 0, delta: args });
    expect(argsDone).toMatchObject({
      item_id: itemId,
      output_index: 0,
      name: 'get_weather',
      arguments: args,
    });
    expect(itemDone.item).toMatchObject({ id: itemId, arguments: args, status: 'completed' });
    expect(completed.response.status).toBe('completed');
    expect(completed.response.output).toEqual([itemDone.item]);
    const callId = (itemDone.item as OpenAI.Responses.ResponseFunctionToolCall).call_id;

    const next = await collect(
      await sdk.responses.create({
        model: 'm',
        previous_response_id: completed.response.id,
        input: [{ type: 'function_call_output', call_id: callId, output: 'rain, 9 °C' }],
        stream: true,
      }),
    );
    const text = next.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Rain in Bergen.');
    expect(next.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    expect(llm.lastMessage(1)).toEqual({ role: 'tool', tool_call_id: 'call_w2', content: 'rain, 9 °C' });
  });

  it("in one turn the agent's own tool runs and the client's waits; both results reach the model in order", async () => {
    llm.script(
      reply.tools([
        { id: 'call_c', name: 'calculator', arguments: { expression: '6 * 7' } },
        { id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } },
      ]),
      reply.text('42, and sunny.'),
    );
    const sdk = sdkFor(t);
    // A client tool named like one of the agent's own is not offered twice: the agent's runs.
    const shadow = { ...weather, name: 'calculator' };
    const first = await sdk.responses.create({ model: 'm', input: 'x', tools: [weather, shadow] });
    expect(llm.requests[0].body.tools!.map((tool) => tool.function.name)).toEqual([
      'calculator',
      'get_weather',
    ]);
    const call = functionCall(first);
    expect(call.name).toBe('get_weather');
    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(second.output_text).toBe('42, and sunny.');
    const results = llm.requests[1].body.messages.filter((m) => m.role === 'tool');
    expect(results).toEqual([
      { role: 'tool', tool_call_id: 'call_c', content: '42' },
      { role: 'tool', tool_call_id: 'call_w', content: 'sunny' },
    ]);
  });

  it('the call is an interaction: answered at /executions/{id}/interactions/{call_id}/response, the result reaches the model', async () => {
    llm.script(
      reply.tools([{ id: 'call_w4', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      reply.text('Cloudy.'),
    );
    const raw = await postJson(
      `${t.url}/v1/responses`,
      { input: 'x', tools: [weather] },
      { authorization: 'Bearer nvapi-pat' },
    );
    const first = raw.json as unknown as OpenAI.Responses.Response;
    const call = functionCall(first);
    const answerUrl = `${t.url}/executions/${raw.headers.get('x-execution-id')}/interactions/${call.call_id}/response`;
    const res = await fetch(answerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nvapi-pat' },
      body: JSON.stringify({ response: { type: 'text', text: 'cloudy' } }),
    });
    expect(res.status).toBe(204);
    const next = await sdkFor(t).responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'ignored: answered already' }],
    });
    expect(next.output_text).toBe('Cloudy.');
    expect(llm.lastMessage(1)).toEqual({ role: 'tool', tool_call_id: 'call_w4', content: 'cloudy' });
  });

  it("an unknown call_id is 400 in OpenAI's shape, and the call still waits for its real output", async () => {
    llm.script(
      reply.tools([{ id: 'call_w3', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      reply.text('Done.'),
    );
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'x', tools: [weather] });
    const call = functionCall(first);
    const wrong = await postJson(
      `${t.url}/v1/responses`,
      {
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'call_forged', output: 'x' }],
      },
      { authorization: 'Bearer nvapi-pat' },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({
      error: {
        message: expect.stringContaining('call_forged') as string,
        type: 'invalid_request_error',
        param: 'input.0.call_id',
        code: expect.anything() as unknown,
      },
    });
    const orphan = sdk.responses.create({
      model: 'm',
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'x' }],
    });
    await expect(orphan).rejects.toMatchObject({ status: 400, param: 'input.0.call_id' });
    expect(llm.requests).toHaveLength(1);
    const answered = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'fine' }],
    });
    expect(answered.output_text).toBe('Done.');
  });

  it('arguments that are not a JSON object never reach the client: the model reads why and calls again', async () => {
    llm.script(
      // The model writes its arguments as a JSON string, not the object the schema asks for.
      reply.tools([{ id: 'call_bad', name: 'get_weather', arguments: '{city: Oslo' }]),
      reply.tools([{ id: 'call_good', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      reply.text('Sunny.'),
    );
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'x', tools: [weather] });
    expect(first.output).toHaveLength(1);
    expect(functionCall(first).arguments).toBe('{"city":"Oslo"}');
    const complaint = llm.lastMessage(1);
    expect(complaint).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' });
    expect(complaint.content).toContain('not a JSON object');
    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: functionCall(first).call_id, output: 'sunny' }],
    });
    expect(second.output_text).toBe('Sunny.');
    expect(llm.lastMessage(2)).toEqual({ role: 'tool', tool_call_id: 'call_good', content: 'sunny' });
  });
});
