import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appWithFakeLlm } from '../utils/fake-llm-config';
import { FakeWebApi, wikipediaAnswers } from '../utils/fake-web-apis';
import { postJson, postStream, dataOf } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

const DUNE = 'Dune is a 1965 epic science fiction novel by American author Frank Herbert.';
const HERBERT = 'Franklin Patrick Herbert Jr. was an American author, best known for Dune.';

/** NAT's agents/react example, the reasoning agent over it: wiki_search, code_generation, two models. */
function natReactConfig(llm: FakeLlm, wiki: FakeWebApi): string {
  const model = (name: string) => ({
    _type: 'nim',
    base_url: llm.url,
    model_name: name,
    api_key: 'test-key',
    max_retries: 0,
  });
  return stringify({
    general: { outbound: { allow_hosts: ['127.0.0.1'] } },
    llms: { nim_llm: model('agent-model'), nemotron_model: model('planner-model') },
    functions: {
      wikipedia_search: { _type: 'wiki_search', max_results: 2, base_url: `${wiki.url}/w/api.php` },
      code_generation: {
        _type: 'code_generation',
        programming_language: 'Rust',
        description: 'Useful to generate Rust code.',
        llm_name: 'nim_llm',
        verbose: true,
      },
      react_agent: {
        _type: 'tool_calling_agent',
        tool_names: ['wikipedia_search', 'code_generation'],
        llm_name: 'nim_llm',
        verbose: true,
      },
    },
    workflow: {
      _type: 'reasoning_agent',
      llm_name: 'nemotron_model',
      augmented_fn: 'react_agent',
      verbose: true,
    },
  });
}

describe("NAT's reasoning_agent, wiki_search and code_generation", () => {
  let wiki: FakeWebApi;
  let llm: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    wiki = await FakeWebApi.start(
      wikipediaAnswers([
        { title: 'Dune (novel)', extract: DUNE },
        { title: 'Frank Herbert', extract: HERBERT },
      ]),
    );
  });
  afterAll(() => wiki.close());
  appWithFakeLlm(
    (l) => natReactConfig(l, wiki),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it('plans with the reasoning model, then the agent answers with the plan, calling wiki_search', async () => {
    wiki.requests.length = 0;
    llm.script(
      reply.text(
        '<think>The user wants an author.</think>\n\n1. Call wikipedia_search with "Dune"\n2. Answer',
      ),
      reply.tools([{ name: 'wikipedia_search', arguments: { question: 'Dune novel' }, id: 'w1' }]),
      reply.text('Dune was written by Frank Herbert.'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'Who wrote Dune?' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: 'Dune was written by Frank Herbert.' });

    const [plan, first, second] = llm.requests.map((r) => r.body);
    expect(plan.model).toBe('planner-model');
    expect(plan.messages).toHaveLength(1);
    const planPrompt = plan.messages[0].content!;
    expect(planPrompt).toContain('**Description:** \nTool Calling Agent Workflow\n\n');
    expect(planPrompt).toContain(
      "**Input:** \n{'content': 'Who wrote Dune?', 'role': 'user', 'tool_calls': None, 'tool_call_id': None}\n\n\n",
    );
    expect(planPrompt).toContain('- wikipedia_search: This tool retrieves relevant contexts from wikipedia');
    expect(planPrompt).toContain('- code_generation: Useful to generate Rust code.');

    // The agent gets NAT's instruction: the request and the plan, the reasoning model's thinking cut.
    expect(first.model).toBe('agent-model');
    expect(first.messages).toEqual([
      {
        role: 'user',
        content:
          "Answer the following question based on message history: {'content': 'Who wrote Dune?', 'role': 'user', 'tool_calls': None, 'tool_call_id': None}\n" +
          '\n\nHere is a plan for execution that you could use to guide you if you wanted to:' +
          '\n\n1. Call wikipedia_search with "Dune"\n2. Answer' +
          '\n\nNOTE: Remember to follow your guidance on how to format output, etc.' +
          '\n\n You must respond with the answer to the original question directly to the user.',
      },
    ]);

    // wiki_search searched the MediaWiki API, read the page found, and answered in NAT's document shape.
    // Pages are read at once: their order of arrival is not fixed.
    expect(wiki.requests.map((r) => r.query.list ?? r.query.titles).sort()).toEqual([
      'Dune (novel)',
      'Frank Herbert',
      'search',
    ]);
    expect(wiki.requests[0].query).toMatchObject({ srsearch: 'Dune novel', srlimit: '2' });
    expect(wiki.requests[0].headers['user-agent']).toMatch(/Interlude/);
    expect(second.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'w1',
      content:
        `<Document source="https://en.wikipedia.org/wiki/Dune_(novel)" page=""/>\n${DUNE}\n</Document>` +
        '\n\n---\n\n' +
        `<Document source="https://en.wikipedia.org/wiki/Frank_Herbert" page=""/>\n${HERBERT}\n</Document>`,
    });
  });

  it("code_generation asks its own LLM with NAT's prompt in the configured language", async () => {
    llm.script(
      reply.text('1. Call code_generation'),
      reply.tools([{ name: 'code_generation', arguments: { query: 'add two numbers' }, id: 'c1' }]),
      reply.text('fn add(a: i32, b: i32) -> i32 { a + b }'),
      reply.text('Here it is: fn add(a: i32, b: i32) -> i32 { a + b }'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'Write add in Rust' });
    expect(res.json).toEqual({ value: 'Here it is: fn add(a: i32, b: i32) -> i32 { a + b }' });
    const codeCall = llm.requests[2].body;
    expect(codeCall.messages).toEqual([
      {
        role: 'system',
        content:
          '\nYou are a helpful code assistant that can teach a junior developer how to code.  Your language of\n' +
          " choice is Rust. Don't explain the code, just generate the code block itself.\n",
      },
      { role: 'user', content: '\nadd two numbers\n' },
    ]);
    expect(llm.requests[3].body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'fn add(a: i32, b: i32) -> i32 { a + b }',
    });
  });

  it("streams the agent's answer, never the plan", async () => {
    llm.script(reply.text('SECRET PLAN: answer directly'), reply.text('Frank Herbert wrote it.'));
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'Who wrote Dune?' });
    const text = dataOf(res)
      .map((d) => (d as { value?: unknown }).value)
      .filter((v): v is string => typeof v === 'string')
      .join('');
    expect(text).toBe('Frank Herbert wrote it.');
  });

  it('a Wikipedia that fails reaches the model as the tool error, and the run goes on', async () => {
    const broken = await FakeWebApi.start(() => ({ status: 503, body: { error: 'maintenance' } }));
    try {
      const other = natReactConfig(llm, broken);
      const app = await startApp(other);
      try {
        llm.script(
          reply.text('plan'),
          reply.tools([{ name: 'wikipedia_search', arguments: { question: 'Dune' }, id: 'w2' }]),
          reply.text('Wikipedia is down.'),
        );
        const res = await postJson(`${app.url}/v1/workflow`, { input_message: 'Who wrote Dune?' });
        expect(res.json).toEqual({ value: 'Wikipedia is down.' });
        expect(llm.requests[2].body.messages.at(-1)?.content).toMatch(
          /^Error: Wikipedia answered 503 for http:\/\/127\.0\.0\.1:\d+\/w\/api\.php/,
        );
      } finally {
        await app.close();
      }
    } finally {
      await broken.close();
    }
  });
});
