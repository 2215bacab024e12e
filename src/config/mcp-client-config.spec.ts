import { ConfigError } from './config.loader';
import { errorOf } from '../../test/utils/config-helpers';

const CONFIG = `function_groups:
  web:
    _type: mcp_client
    server:
      transport: streamable-http
      command: python
  local:
    _type: mcp_client
    server:
      transport: stdio
      url: http://localhost:9901/mcp
  filtered:
    _type: mcp_client
    server: { transport: sse, url: 'ftp://x' }
    include: [a, a]
    exclude: [b]
    reconnect_initial_backoff: 5
    reconnect_max_backoff: 1
    tool_overrides:
      a: { alias: 'bad name', colour: red }
  wrong:
    _type: mcp_cliente
    server: { transport: carrier-pigeon }
workflow:
  _type: tool_calling_agent
  llm_name: m
  tool_names: [web, web__search, nowhere__tool]
llms:
  m: { _type: openai, model_name: x, api_key: k }
`;

describe('mcp_client config errors (file:line: path: message)', () => {
  it("reports NAT's transport rules, include/exclude, backoffs, overrides and unknown names, each at its line", () => {
    const err = errorOf(CONFIG);
    expect(err).toBeInstanceOf(ConfigError);
    const lines = err.message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
    expect(lines).toEqual(
      expect.arrayContaining([
        'app.yml:6: function_groups.web.server.command: command should not be set when using streamable-http transport',
        'app.yml:5: function_groups.web.server.url: url is required when using streamable-http transport',
        'app.yml:11: function_groups.local.server.url: url should not be set when using stdio transport',
        'app.yml:10: function_groups.local.server.command: command is required when using stdio transport',
        'app.yml:14: function_groups.filtered.server.url: must be an http(s) URL',
        'app.yml:15: function_groups.filtered.include: include and exclude cannot be used together',
        'app.yml:15: function_groups.filtered.include[1]: "a" is listed twice',
        'app.yml:18: function_groups.filtered.reconnect_max_backoff: reconnect_max_backoff must be greater than or equal to reconnect_initial_backoff',
        'app.yml:20: function_groups.filtered.tool_overrides.a.colour: Extra inputs are not permitted',
        'app.yml:20: function_groups.filtered.tool_overrides.a.alias: must be 1-64 letters, digits, _ or -',
        'app.yml:22: function_groups.wrong._type: unknown function group _type "mcp_cliente"; known types: calculator, mcp_client, per_user_mcp_client, tavily',
      ]),
    );
    expect(lines.filter((l) => l.includes('workflow.tool_names'))).toEqual([
      'app.yml:27: workflow.tool_names[2]: no entry "nowhere__tool" in functions or function_groups; function_groups: web, local, filtered, wrong',
    ]);
  });

  it('takes streamable-http when server.transport is left out, as NAT does', () => {
    const err = errorOf(`function_groups:
  web:
    _type: mcp_client
    server: { command: python }
workflow: { _type: echo }
`);
    expect(err.message).toContain(
      'function_groups.web.server.command: command should not be set when using streamable-http transport',
    );
    expect(err.message).toContain(
      'function_groups.web.server.url: url is required when using streamable-http transport',
    );
  });
});
