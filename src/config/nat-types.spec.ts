import { errorOf, problemAt } from '../../test/utils/config-helpers';

const LLM = 'llms:\n  m: { _type: nim, model_name: m, api_key: k }\n';
const GUIDE = 'docs/from-nemo-agent-toolkit.md';

describe("unknown _types, told apart with NAT's own table", () => {
  it("a NAT example's Python function: which, from which package, and the way across over MCP", () => {
    const err = errorOf(`${LLM}functions:\n  q: { _type: webpage_query }\nworkflow: { _type: echo }\n`);
    expect(problemAt(err, 'functions.q._type').message).toBe(
      '"webpage_query" is a NeMo Agent Toolkit Python function (package nat_simple_web_query, one of NAT\'s examples); ' +
        'Interlude runs TypeScript components and does not have it. Serve it with `nat mcp serve` and list it as an ' +
        `mcp_client group: see ${GUIDE}`,
    );
  });

  it('a NAT agent as the workflow: served over MCP and called by an agent here', () => {
    const err = errorOf(`${LLM}workflow: { _type: auto_memory_agent, llm_name: m }\n`);
    expect(problemAt(err, 'workflow._type').message).toMatch(
      /^"auto_memory_agent" is a NeMo Agent Toolkit Python function \(package nvidia-nat-langchain\); .* an agent \(react_agent, tool_calling_agent\) calls it through an mcp_client group/,
    );
  });

  it("NAT's full `package/name` types are found by their name", () => {
    const err = errorOf(
      `${LLM}functions:\n  t: { _type: nat_autogen_demo/traffic_status_autogen }\nworkflow: { _type: echo }\n`,
    );
    expect(problemAt(err, 'functions.t._type').message).toContain(
      "(package nat_autogen_demo, one of NAT's examples)",
    );
  });

  it('an LLM provider NAT has and Interlude lacks points to the OpenAI-compatible types', () => {
    const err = errorOf('llms:\n  l: { _type: litellm, model_name: x }\nworkflow: { _type: echo }\n');
    expect(problemAt(err, 'llms.l._type').message).toBe(
      '"litellm" is a NeMo Agent Toolkit Python LLM (package nvidia-nat-core); Interlude runs TypeScript components and ' +
        `does not have it. An OpenAI-compatible endpoint runs as _type: openai with its base_url (known types: openai, nim, dynamo); see ${GUIDE}`,
    );
  });

  it('an auth provider NAT has names the package and the types Interlude has', () => {
    const err = errorOf('authentication:\n  a: { _type: http_basic }\nworkflow: { _type: echo }\n');
    expect(problemAt(err, 'authentication.a._type').message).toBe(
      '"http_basic" is a NeMo Agent Toolkit Python authentication provider (package nvidia-nat-core); Interlude runs ' +
        `TypeScript components and does not have it. Known types: oauth2_auth_code_flow, mcp_service_account, api_key, mcp_oauth2; see ${GUIDE}`,
    );
  });

  it('a type under the wrong section names the section it belongs in', () => {
    const err = errorOf(
      'functions:\n  t: { _type: tavily }\n  e: { _type: nim }\nfunction_groups:\n  d: { _type: current_datetime }\n  w: { _type: webpage_query }\nworkflow: { _type: echo }\n',
    );
    expect(problemAt(err, 'functions.t._type').message).toBe(
      '"tavily" is a function group type: declare it under function_groups: (it is under functions:)',
    );
    expect(problemAt(err, 'functions.e._type').message).toBe(
      '"nim" is a NeMo Agent Toolkit embedder: it belongs under embedders: (it is under functions:)',
    );
    expect(problemAt(err, 'function_groups.d._type').message).toBe(
      '"current_datetime" is a function type: declare it under functions: (it is under function_groups:)',
    );
    expect(problemAt(err, 'function_groups.w._type').message).toBe(
      '"webpage_query" is a NeMo Agent Toolkit function: it belongs under functions: (it is under function_groups:)',
    );
  });

  it('a name NAT does not have either stays a typo, with the types there are', () => {
    const err = errorOf('workflow: { _type: tool_caling_agent }\n');
    expect(problemAt(err, 'workflow._type').message).toMatch(
      /^unknown _type "tool_caling_agent"; known types: .*tool_calling_agent/,
    );
  });
});
