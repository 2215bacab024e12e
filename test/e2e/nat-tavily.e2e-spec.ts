import { stringify } from 'yaml';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { parseConfig } from '../../src/config/config.loader';
import { connectGroups } from '../../src/config/function-groups';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appWithFakeLlm } from '../utils/fake-llm-config';
import { FakeWebApi } from '../utils/fake-web-apis';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** Tavily's search answer, in the API's shape. */
const SEARCH_ANSWER = {
  query: 'NeMo Agent Toolkit end of life',
  answer: null,
  images: [],
  results: [
    {
      title: 'NeMo Agent Toolkit',
      url: 'https://example.org/nat',
      content: 'End of life at the end of 2026.',
      score: 0.91,
      raw_content: null,
    },
  ],
  response_time: 0.42,
};

/** NAT's documentation_guides search_config: one Tavily group offering only search. */
function tavilyConfig(llm: FakeLlm, tavily: FakeWebApi, api_key?: string): string {
  return stringify({
    general: { outbound: { allow_hosts: ['127.0.0.1'] } },
    function_groups: {
      internet_search: {
        _type: 'tavily',
        include: ['search'],
        base_url: tavily.url,
        ...(api_key ? { api_key } : {}),
      },
    },
    llms: { nim_llm: { _type: 'nim', base_url: llm.url, model_name: 'm', api_key: 'k', max_retries: 0 } },
    workflow: { _type: 'tool_calling_agent', tool_names: ['internet_search__search'], llm_name: 'nim_llm' },
  });
}

describe("the tavily function group (Tavily's NAT plugin)", () => {
  let tavily: FakeWebApi;
  let llm: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    tavily = await FakeWebApi.start((req) =>
      req.headers.authorization === 'Bearer tvly-test'
        ? { body: req.path === '/search' ? SEARCH_ANSWER : { results: [] } }
        : { status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } },
    );
  });
  afterAll(() => tavily.close());
  appWithFakeLlm(
    (l) => tavilyConfig(l, tavily, 'tvly-test'),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it("offers <group>__search with Tavily's parameters, posts the model's arguments and hands back Tavily's answer", async () => {
    llm.script(
      reply.tools([
        {
          name: 'internet_search__search',
          arguments: { query: 'NeMo Agent Toolkit end of life', max_results: 1, topic: 'news' },
          id: 's1',
        },
      ]),
      reply.text('It reaches end of life at the end of 2026.'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'When does NAT end?' });
    expect(res.json).toEqual({ value: 'It reaches end of life at the end of 2026.' });

    const offered = llm.requests[0].body.tools!.map((x) => x.function);
    expect(offered.map((f) => f.name)).toEqual(['internet_search__search']);
    expect(offered[0].parameters).toMatchObject({ required: ['query'] });
    expect(tavily.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/search',
      body: { query: 'NeMo Agent Toolkit end of life', max_results: 1, topic: 'news' },
    });
    expect(llm.requests[1].body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 's1',
      content: JSON.stringify(SEARCH_ANSWER),
    });
  });

  it("arguments outside Tavily's schema go back to the model, never to Tavily", async () => {
    const before = tavily.requests.length;
    llm.script(
      reply.tools([
        { name: 'internet_search__search', arguments: { query: 'x', api_key: 'steal' }, id: 's2' },
      ]),
      reply.text('ok'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: 'search' });
    expect(tavily.requests.length).toBe(before);
    expect(llm.requests[1].body.messages.at(-1)?.content).toMatch(/^Error: .*api_key/);
  });

  it('a missing API key stops start-up naming the group, as NAT does; TAVILY_API_KEY is read when the file has none', async () => {
    const registry = builtinRegistry();
    const fake = { url: 'http://127.0.0.1:9' } as FakeLlm;
    const without = parseConfig(tavilyConfig(fake, tavily), 'app.yml', registry, {});
    await expect(connectGroups(without)).rejects.toThrow(
      'function_groups.internet_search: Tavily API key not provided. Set the `api_key` config field or the TAVILY_API_KEY env var.',
    );
    const fromEnv = parseConfig(tavilyConfig(fake, tavily), 'app.yml', registry, {
      TAVILY_API_KEY: 'tvly-test',
    });
    await expect(connectGroups(fromEnv)).resolves.toBeUndefined();
  });
});
