import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { captureErrorLog, INTERNAL_ERROR, traceIn } from '../utils/internal-errors';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** What the model's endpoint says when it refuses: internal detail no caller may read. */
const UPSTREAM = 'Incorrect API key provided: sk-SECRET-KEY-12345. Internal gateway 10.1.2.3:8443';

/**
 * Agents that answer with their failure instead of raising it, as NAT's do (router_agent always, a
 * verbose responses_api_agent): the answer names an internal failure only by its trace, as every face
 * does for a failed run, and the detail goes to the log.
 */
describe('agents that answer with their failure', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let log: ReturnType<typeof captureErrorLog>;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));
  beforeEach(() => (log = captureErrorLog()));
  afterEach(() => log.restore());

  const model = (extra: Record<string, unknown> = {}) => ({
    _type: 'openai',
    base_url: llm.url,
    model_name: 'fake',
    api_key: 'k',
    max_retries: 0,
    ...extra,
  });
  const router = (workflow: Record<string, unknown> = {}) =>
    stringify({
      llms: { model: model() },
      functions: { calc: { _type: 'calculator' } },
      workflow: { _type: 'router_agent', llm_name: 'model', branches: ['calc'], ...workflow },
    });
  const value = async (url: string) => {
    const res = await postJson(`${url}/v1/workflow`, { input_message: 'hi' });
    expect(res.status).toBe(200);
    return (res.json as { value: string }).value;
  };

  it("router_agent answers an LLM's refusal with the internal-error message, the detail in the log", async () => {
    t = await apps.start(router());
    llm.script(reply.error(401, UPSTREAM));
    const answer = await value(t.url);
    const prefix = 'Router agent failed with exception: ';
    expect(answer.startsWith(prefix)).toBe(true);
    expect(answer.slice(prefix.length)).toMatch(INTERNAL_ERROR);
    expect(answer).not.toMatch(/SECRET|10\.1\.2\.3|127\.0\.0\.1|HTTP 401/);
    const line = log.lineFor(traceIn(answer.slice(prefix.length)));
    expect(line).toContain('Internal gateway 10.1.2.3:8443');
    expect(line).toContain('answered HTTP 401');
  });

  it('router_agent with verbose: true answers with the internal-error message alone, and its own failure as it is', async () => {
    t = await apps.start(router({ verbose: true, max_router_retries: 1 }));
    llm.script(reply.error(401, UPSTREAM));
    expect(await value(t.url)).toMatch(INTERNAL_ERROR);
    llm.script(reply.text('none of them'));
    expect(await value(t.url)).toBe('Router Agent failed to choose a branch');
  });

  it('a verbose responses_api_agent answers an LLM failure with the internal-error message', async () => {
    t = await apps.start(
      stringify({
        llms: { m: model({ api_type: 'responses' }) },
        function_groups: { calculator: { _type: 'calculator' } },
        workflow: {
          _type: 'responses_api_agent',
          nat_tools: ['calculator__add'],
          llm_name: 'm',
          verbose: true,
        },
      }),
    );
    llm.script(reply.error(401, UPSTREAM));
    const answer = await value(t.url);
    expect(answer).toMatch(INTERNAL_ERROR);
    expect(log.lineFor(traceIn(answer))).toContain('Internal gateway 10.1.2.3:8443');
  });
});
