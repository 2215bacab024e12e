import OpenAI from 'openai';
import type { Chunk } from '../utils/chat';
import { FakeLlm, reply, tokens } from '../utils/fake-llm';
import { agentYaml, CALCULATOR, appWithFakeLlm } from '../utils/fake-llm-config';
import { postStream, type StreamResult } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

const ANSWER = 'The answer is 14.';
const USAGE_1 = { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 };
const USAGE_2 = { prompt_tokens: 45, completion_tokens: 4, total_tokens: 49 };
const TOTAL = { prompt_tokens: 75, completion_tokens: 12, total_tokens: 87 };
const RUN = [
  reply.tools([{ name: 'calculator', arguments: { expression: '7 * 2' } }], '', USAGE_1),
  reply.text(ANSWER, USAGE_2),
];

/** The stream's frames in order: intermediate steps by name (with their payload) and content chunks. */
interface Frame {
  step?: string;
  payload?: string;
  content?: string;
  chunk?: Chunk;
}

function frames(res: StreamResult): Frame[] {
  return res.lines.flatMap((line): Frame[] => {
    if (line.startsWith('intermediate_data: ')) {
      const step = JSON.parse(line.slice('intermediate_data: '.length)) as { name: string; payload: string };
      return [{ step: step.name, payload: step.payload }];
    }
    if (line.startsWith('data: ') && line !== 'data: [DONE]') {
      const chunk = JSON.parse(line.slice('data: '.length)) as Chunk;
      return [{ content: chunk.choices[0]?.delta.content, chunk }];
    }
    return [];
  });
}

describe('agents stream their answer token by token, with real token usage', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let sdk: OpenAI;
  appWithFakeLlm(
    (llm) => agentYaml(llm, { _type: 'tool_calling_agent', tool_names: ['calculator'] }, CALCULATOR),
    (l, app) => {
      llm = l;
      t = app;
      sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
    },
  );

  it('/v1/chat/stream: the tool step, then each token as a chunk in the order the model sent them, and the model step showing the answer so far', async () => {
    llm.script(...RUN);
    const res = await postStream(`${t.url}/v1/chat/stream`, {
      messages: [{ role: 'user', content: '7 * 2?' }],
    });
    expect(res.status).toBe(200);
    const all = frames(res);
    const contents = all.filter((f) => f.content !== undefined).map((f) => f.content);
    expect(contents).toEqual(tokens(ANSWER));
    expect(contents).toEqual(['The', ' answer', ' is', ' 14.']);

    const toolEnd = all.findIndex((f) => f.step === 'Tool: calculator' && f.payload!.includes('**Output:**'));
    const firstChunk = all.findIndex((f) => f.content !== undefined);
    expect(toolEnd).toBeGreaterThan(0);
    expect(firstChunk).toBeGreaterThan(toolEnd);
    // the model's step shows the answer so far whenever it is shown (at most every 100 ms while it
    // streams), then all of it
    let sofar = '';
    all.forEach((f, i) => {
      if (f.content !== undefined) sofar += f.content;
      if (f.step !== 'fake-model' || i < firstChunk) return;
      expect(f.payload!.endsWith(`**Output:**\n${sofar}`)).toBe(true);
    });
    const modelSteps = all.filter((f) => f.step === 'fake-model');
    expect(modelSteps.at(-1)!.payload!.endsWith(`**Output:**\n${ANSWER}`)).toBe(true);
    const last = all.filter((f) => f.chunk).at(-1)!.chunk!;
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(llm.requests.map((r) => r.body.stream)).toEqual([true, true]);
  });

  it('/v1/workflow/stream: each token as a {"value": …} item', async () => {
    llm.script(...RUN);
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: '7 * 2?' });
    const values = res.events.filter((e) => e.event === undefined).map((e) => JSON.parse(e.data) as unknown);
    expect(values).toEqual(tokens(ANSWER).map((value) => ({ value })));
  });

  it("/v1/chat/completions with the openai SDK: deltas in order, and a last chunk with the run's usage", async () => {
    llm.script(...RUN);
    const stream = await sdk.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: '7 * 2?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    expect(deltas).toEqual(tokens(ANSWER));
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual(TOTAL);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.every((c) => c.model === 'agent' && c.id === chunks[0].id)).toBe(true);
  });

  it('/v1/chat/completions streamed without include_usage: no usage chunk', async () => {
    llm.script(...RUN);
    const res = await postStream(`${t.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: '7 * 2?' }],
      stream: true,
    });
    const chunks = frames(res).flatMap((f) => (f.chunk ? [f.chunk] : []));
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(res.lines.at(-1)).toBe('data: [DONE]');
  });

  it('/v1/chat/completions not streamed: the usage of every model call, and the model was not asked to stream', async () => {
    llm.script(...RUN);
    const completion = await sdk.chat.completions.create({
      model: 'agent',
      messages: [{ role: 'user', content: '7 * 2?' }],
    });
    expect(completion.choices[0].message.content).toBe(ANSWER);
    expect(completion.usage).toEqual(TOTAL);
    expect(llm.requests.map((r) => r.body.stream)).toEqual([false, false]);
  });
});
