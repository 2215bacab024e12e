import { stringify } from 'yaml';
import { FakeLlm, reply, type ModelRequest } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/**
 * NAT's parallel_executor (every branch gets the request at once; the answer is the branches' outputs
 * as `<name>:\n<output>` blocks) and chat_completion (one LLM call with a system prompt), laid out as
 * NAT's own parallel_executor example lays them out.
 */
describe('parallel_executor and chat_completion (NAT)', () => {
  let llm: FakeLlm;
  let t: TestApp | undefined;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const model = (name: string) => ({
    _type: 'openai',
    base_url: llm.url,
    model_name: name,
    api_key: 'k',
    max_retries: 0,
  });
  const yaml = (parallel: Record<string, unknown>, workflow?: Record<string, unknown>) =>
    stringify({
      llms: { model: model('fake'), broken: model('broken') },
      functions: {
        topic_agent: { _type: 'chat_completion', llm_name: 'model', system_prompt: 'Classify the topic' },
        urgency_agent: { _type: 'chat_completion', llm_name: 'model', system_prompt: 'Classify the urgency' },
        fails: { _type: 'tool_calling_agent', llm_name: 'broken', tool_names: [], description: 'Fails' },
        parallel_analysis: {
          _type: 'parallel_executor',
          description: 'Run analyses in parallel',
          detailed_logs: true,
          ...parallel,
        },
        final_synthesis_agent: { _type: 'chat_completion', llm_name: 'model', system_prompt: 'Synthesize' },
      },
      workflow: workflow ?? {
        _type: 'sequential_executor',
        tool_list: ['parallel_analysis', 'final_synthesis_agent'],
        raise_type_incompatibility: false,
      },
    });

  /** Branches run at once: each request is answered by what its system prompt asks for. */
  const answers = (request: ModelRequest) => {
    if (request.body.model === 'broken') return reply.error(400, 'bad request');
    const [system, user] = request.body.messages;
    if (system.content === 'Classify the topic') return reply.text('{"topic": "sales"}');
    if (system.content === 'Classify the urgency') return reply.text('{"urgency": "high"}');
    if (system.content === 'Synthesize') return reply.text(`REPORT from ${user.content}`);
    return reply.text('unexpected');
  };

  it('gives every branch the request at once and hands their outputs on as NAT joins them', async () => {
    t = await apps.start(yaml({ tool_list: ['topic_agent', 'urgency_agent'] }));
    llm.respondWith(answers);
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'Our biggest customer is down' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      value: 'REPORT from topic_agent:\n{"topic": "sales"}\n\nurgency_agent:\n{"urgency": "high"}',
    });
    const branchRequests = llm.requests.slice(0, 2).map((r) => r.body.messages);
    expect(branchRequests).toEqual(
      expect.arrayContaining([
        [
          { role: 'system', content: 'Classify the topic' },
          { role: 'user', content: 'Our biggest customer is down' },
        ],
        [
          { role: 'system', content: 'Classify the urgency' },
          { role: 'user', content: 'Our biggest customer is down' },
        ],
      ]),
    );
    expect(llm.requests).toHaveLength(3);
  });

  it('with return_error_on_exception a failing branch is an ERROR block and the others still answer', async () => {
    t = await apps.start(
      yaml(
        { tool_list: ['fails', 'topic_agent'], return_error_on_exception: true },
        {
          _type: 'parallel_executor',
          tool_list: ['fails', 'topic_agent'],
          return_error_on_exception: true,
        },
      ),
    );
    llm.respondWith(answers);
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(res.status).toBe(200);
    const value = (res.json as { value: string }).value;
    expect(value).toMatch(/^fails:\nERROR: \w+: .*bad request.*\n\ntopic_agent:\n\{"topic": "sales"\}$/s);
  });

  it('without it, a failing branch fails the run', async () => {
    t = await apps.start(
      yaml({ tool_list: ['fails'] }, { _type: 'parallel_executor', tool_list: ['topic_agent', 'fails'] }),
    );
    llm.respondWith(answers);
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it("chat_completion keeps a conversation's own system message and answers a chat with a chat completion", async () => {
    t = await apps.start(
      yaml({ tool_list: ['topic_agent'] }, { _type: 'chat_completion', llm_name: 'model' }),
    );
    llm.script(reply.text('Hello there'));
    const messages = [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'hi' },
    ];
    const res = await postJson(`${t.url}/v1/chat/completions`, { messages });
    expect(res.status).toBe(200);
    expect((res.json as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(
      'Hello there',
    );
    expect(llm.requests[0].body.messages).toEqual(messages);
  });

  it("chat_completion sends NAT's default system prompt, and a failed call answers with NAT's apology", async () => {
    t = await apps.start(
      yaml({ tool_list: ['topic_agent'] }, { _type: 'chat_completion', llm_name: 'model' }),
    );
    llm.script(reply.error(400, 'bad request'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'what is 2+2?' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      value:
        "I apologize, but I encountered an error while processing your query: 'what is 2+2?'. " +
        'Please try rephrasing your question or try again later.',
    });
    expect(llm.requests[0].body.messages[0]).toEqual({
      role: 'system',
      content: expect.stringMatching(/^You are a helpful AI assistant\. .* Be helpful and informative\.$/),
    });
  });
});
