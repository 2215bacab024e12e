import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { call } from '../utils/hitl';
import { postJson, postStream } from '../utils/sse';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

function sdkFor(t: TestApp, key = 'nvapi-pat'): OpenAI {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0 });
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

const COLORS = `[{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }, { id: b, label: Blue, value: blue }]`;

describe('a person in the loop: a prompt ends the response with a function_call, the next response answers it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- stream: { text: 'Hi {{input}}. ' }
- prompt: { input_type: text, text: 'Your city?', save_as: city }
- prompt: { input_type: radio, text: 'Favourite colour?', options: ${COLORS}, save_as: colour }
- prompt: { input_type: checkbox, text: 'Which days?', options: [{ id: mo, label: Monday, value: mon }, { id: tu, label: Tuesday, value: tue }], save_as: days }
- prompt: { input_type: binary_choice, text: 'Book it?', options: [{ id: y, label: Yes, value: 'yes' }, { id: n, label: No, value: 'no' }], save_as: ok }`,
        'Booked {{city}}, {{colour}}, {{days}}, {{ok}}',
      ),
    );
  });
  afterAll(() => t.close());

  it('text, radio, checkbox and binary prompts each end a response; answers resume the same workflow, streamed or not', async () => {
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'Ann' });
    expect(first.status).toBe('completed');
    expect(first.output_text).toBe('Hi Ann. ');
    const ask = functionCall(first);
    expect(ask).toMatchObject({ type: 'function_call', name: 'human_input', status: 'completed' });
    expect(JSON.parse(ask.arguments)).toMatchObject({ input_type: 'text', text: 'Your city?' });

    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: ask.call_id, output: 'Oslo' }],
    });
    const radio = functionCall(second);
    expect(JSON.parse(radio.arguments)).toMatchObject({ input_type: 'radio', text: 'Favourite colour?' });
    expect(second.output).toHaveLength(1);

    const events = await collect(
      await sdk.responses.create({
        model: 'm',
        previous_response_id: second.id,
        input: [{ type: 'function_call_output', call_id: radio.call_id, output: 'Green' }],
        stream: true,
      }),
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
    const third = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
    const days = functionCall(third);
    expect((events[4] as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent).arguments).toBe(
      days.arguments,
    );

    const fourth = await sdk.responses.create({
      model: 'm',
      previous_response_id: third.id,
      input: [{ type: 'function_call_output', call_id: days.call_id, output: 'Monday, Tuesday' }],
    });
    const book = functionCall(fourth);
    expect(JSON.parse(book.arguments)).toMatchObject({ input_type: 'binary_choice' });
    const last = await sdk.responses.create({
      model: 'm',
      previous_response_id: fourth.id,
      input: [{ type: 'function_call_output', call_id: book.call_id, output: 'yes' }],
    });
    expect(last).toMatchObject({ status: 'completed', output_text: 'Booked Oslo, green, mon, tue, yes' });
  });

  it('the prompt stays answerable at /executions/{id}/interactions/{iid}/response; the next response shows what followed', async () => {
    const sdk = sdkFor(t);
    const raw = await postJson(
      `${t.url}/v1/responses`,
      { input: 'Bo' },
      { authorization: 'Bearer nvapi-pat' },
    );
    const executionId = raw.headers.get('x-execution-id')!;
    const first = raw.json as unknown as OpenAI.Responses.Response;
    const ask = functionCall(first);
    const answerUrl = `${t.url}/executions/${executionId}/interactions/${ask.call_id}/response`;
    // Another caller (here an anonymous one) cannot reach the execution: 404.
    expect((await call('POST', answerUrl, { response: { type: 'text', text: 'Rome' } })).status).toBe(404);
    const res = await fetch(answerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nvapi-pat' },
      body: JSON.stringify({ response: { type: 'text', text: 'Rome' } }),
    });
    expect(res.status).toBe(204);
    const next = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: ask.call_id, output: 'ignored: answered already' }],
    });
    expect(JSON.parse(functionCall(next).arguments)).toMatchObject({ text: 'Favourite colour?' });
  });

  it('a wrong call_id, or an answer that fits no option, is 400 in OpenAI error shape', async () => {
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'Cy' });
    const wrong = sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_nope', output: 'x' }],
    });
    await expect(wrong).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(wrong).rejects.toMatchObject({ param: 'input.0.call_id' });
    const noPrevious = await postStream(
      `${t.url}/v1/responses`,
      {
        input: [{ type: 'function_call_output', call_id: functionCall(first).call_id, output: 'x' }],
        stream: true,
      },
      { authorization: 'Bearer nvapi-pat' },
    );
    expect(noPrevious.status).toBe(400);
    expect(JSON.parse(noPrevious.text)).toMatchObject({ error: { type: 'invalid_request_error' } });

    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: functionCall(first).call_id, output: 'Lima' }],
    });
    await expect(
      sdk.responses.create({
        model: 'm',
        previous_response_id: second.id,
        input: [{ type: 'function_call_output', call_id: functionCall(second).call_id, output: 'Purple' }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('"Purple"') as string });
  });
});

describe("an agent's ask_confirmation is a function_call named after the tool", () => {
  let llm: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: ['ask_confirmation'] },
        {
          ask_confirmation: { _type: 'ask_confirmation' },
        },
      ),
    );
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('the answer reaches the model as the tool result, and the agent goes on in the new response', async () => {
    llm.script(
      reply.tools([{ name: 'ask_confirmation', arguments: { question: 'Delete the draft?' } }]),
      reply.text('Deleted.'),
    );
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'Clean up' });
    const ask = functionCall(first);
    expect(ask.name).toBe('ask_confirmation');
    expect(JSON.parse(ask.arguments)).toMatchObject({
      input_type: 'radio',
      text: expect.stringContaining('Delete the draft?') as string,
    });
    const events = await collect(
      await sdk.responses.create({
        model: 'm',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: ask.call_id, output: 'yes' }],
        stream: true,
      }),
    );
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.output).toMatchObject([{ type: 'message', content: [{ text: 'Deleted.' }] }]);
    const toolResult = llm.lastMessage(1);
    expect(toolResult.role).toBe('tool');
    expect(toolResult.content).toContain('yes');
  });
});

describe('background responses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- stream: { text: 'Working. ' }
- prompt: { input_type: text, text: 'Go on?', save_as: go }
- stream: { text: 'Done {{go}}.' }
- sleep: { seconds: 30 }`,
        'never shown',
      ),
    );
  });
  afterAll(() => t.close());

  it('answer queued at once; polling shows the function call; re-attaching streams each later event once', async () => {
    const sdk = sdkFor(t);
    const created = await sdk.responses.create({ model: 'm', input: 'x', background: true });
    expect(created).toMatchObject({ status: 'queued', background: true, output: [] });
    const paused = await eventually(async () => {
      const polled = await sdk.responses.retrieve(created.id);
      expect(polled.status).toBe('completed');
      return polled;
    });
    expect(paused.output_text).toBe('Working. ');
    expect(functionCall(paused).name).toBe('human_input');

    const all = await collect(await sdk.responses.retrieve(created.id, { stream: true }));
    expect(all.map((e) => e.sequence_number)).toEqual([...all.keys()]);
    expect((all[0] as OpenAI.Responses.ResponseCreatedEvent).response.status).toBe('queued');
    const later = await collect(
      await sdk.responses.retrieve(created.id, { stream: true, starting_after: 4 }),
    );
    expect(later).toEqual(all.slice(5));
  });

  it('cancel stops the workflow; the response ends cancelled', async () => {
    const sdk = sdkFor(t);
    const first = await sdk.responses.create({ model: 'm', input: 'x' });
    const running = await sdk.responses.create({
      model: 'm',
      background: true,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: functionCall(first).call_id, output: 'now' }],
    });
    const executionId = (
      await fetch(`${t.url}/v1/responses/${running.id}`, { headers: { authorization: 'Bearer nvapi-pat' } })
    ).headers.get('x-execution-id')!;
    await eventually(async () => {
      const polled = await sdk.responses.retrieve(running.id);
      expect(polled.status).toBe('in_progress');
    });
    const cancelled = await sdk.responses.cancel(running.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await sdk.responses.retrieve(running.id)).status).toBe('cancelled');
    await expect(sdk.responses.cancel(first.id)).rejects.toMatchObject({ status: 400 });
    // The workflow really stopped: its execution ended, cancelled by the client.
    const execution = await fetch(`${t.url}/executions/${executionId}`, {
      headers: { authorization: 'Bearer nvapi-pat' },
    });
    expect(((await execution.json()) as { status: string }).status).toBe('failed');
  });
});
