import { errorOf, parse, problemAt } from '../../../test/utils/config-helpers';

const LLMS = `llms:
  nim_llm:
    _type: nim
    model_name: meta/llama-3.1-70b-instruct
  openai_llm:
    _type: openai
    model: gpt-4o-mini
`;

describe('agent configs', () => {
  it("builds an agent with its LLM and tools; NIM and OpenAI default endpoints, NAT's `model` alias", () => {
    const config = parse(`${LLMS}functions:
  calculator: { _type: calculator }
workflow:
  _type: tool_calling_agent
  llm_name: nim_llm
  tool_names: [calculator]
`);
    expect(config.workflow.type).toBe('tool_calling_agent');
    expect(config.llms.get('nim_llm')).toMatchObject({
      model: 'meta/llama-3.1-70b-instruct',
      endpoint: 'https://integrate.api.nvidia.com/v1',
      hasApiKey: false,
    });
    expect(config.llms.get('openai_llm')).toMatchObject({
      model: 'gpt-4o-mini',
      endpoint: 'https://api.openai.com/v1',
    });
  });

  it('takes the API key from the environment variable of its _type', () => {
    const config = parse(`${LLMS}workflow: { _type: react_agent, llm_name: nim_llm }\n`, {
      NVIDIA_API_KEY: 'nv',
    });
    expect(config.llms.get('nim_llm')!.hasApiKey).toBe(true);
    expect(config.llms.get('openai_llm')!.hasApiKey).toBe(false);
  });

  it('reports unknown LLMs and tools, with the names that exist and the line', () => {
    const err = errorOf(`${LLMS}functions:
  calculator: { _type: calculator }
workflow:
  _type: tool_calling_agent
  llm_name: nim
  tool_names: [calculator, search]
`);
    expect(problemAt(err, 'workflow.llm_name')).toEqual({
      path: 'workflow.llm_name',
      message: 'no entry "nim" in llms; llms: nim_llm, openai_llm',
      line: 12,
    });
    expect(problemAt(err, 'workflow.tool_names[1]').message).toBe(
      'no entry "search" in functions; functions: calculator',
    );
  });

  it('reports a bad LLM entry under llms:, and an agent cannot be its own tool', () => {
    const err = errorOf(`llms:
  model: { _type: openai, model_name: m, temperature: 3, retries: 2 }
  other: { _type: anthropic, model_name: m }
functions:
  helper: { _type: react_agent, llm_name: model, tool_names: [helper] }
workflow: { _type: tool_calling_agent, llm_name: [] }
`);
    expect(problemAt(err, 'llms.model.temperature').message).toMatch(/less than or equal to 2/);
    expect(problemAt(err, 'llms.model.retries').message).toMatch(/not permitted/);
    expect(problemAt(err, 'llms.other._type').message).toBe(
      'unknown _type "anthropic"; known types: openai, nim, dynamo',
    );
    expect(problemAt(err, 'functions.helper.tool_names[0]').message).toBe('"helper" cannot be its own tool');
    expect(problemAt(err, 'workflow.llm_name').message).toBe('name at least one entry of llms:');
  });

  it('checks tools: an http_request URL whose host is a placeholder, an unknown auth provider, a time zone', () => {
    const err = errorOf(`${LLMS}functions:
  fetch_it: { _type: http_request, url: 'https://{{host}}/x' }
  call_api: { _type: http_request, url: 'https://api.test/{{id}}', auth_provider: github }
  clock: { _type: current_datetime, timezone: Mars/Base }
workflow: { _type: react_agent, llm_name: nim_llm, system_prompt: 'No tools listed' }
`);
    expect(problemAt(err, 'functions.fetch_it.url').message).toMatch(/host has no \{\{placeholder\}\}/);
    expect(problemAt(err, 'functions.call_api.auth_provider').message).toBe(
      'no entry "github" in authentication, and authentication: declares none',
    );
    expect(problemAt(err, 'functions.clock.timezone').message).toMatch(/unknown time zone "Mars\/Base"/);
    expect(problemAt(err, 'workflow.system_prompt').message).toMatch(/must contain \{tools\}/);
  });
});
