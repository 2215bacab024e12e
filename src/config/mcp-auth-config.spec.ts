import { errorOf, parse } from '../../test/utils/config-helpers';

const LLM = `llms:
  m: { _type: openai, model_name: x, api_key: k }
workflow:
  _type: tool_calling_agent
  llm_name: m
  tool_names: [jira]
`;

const group = (provider: string) => `function_groups:
  jira:
    _type: mcp_client
    server: { transport: streamable-http, url: 'http://127.0.0.1:9/mcp', auth_provider: ${provider} }
`;

function messages(yaml: string): string[] {
  return errorOf(yaml)
    .message.split('\n')
    .slice(1)
    .map((l) => l.trim());
}

describe("NAT's MCP client auth providers (mcp_service_account, api_key)", () => {
  it("reads NAT's service account config: space-separated scopes, a static service token, a Python token function warned about", () => {
    const { warnings } = parse(`${LLM}${group('sa')}authentication:
  sa:
    _type: mcp_service_account
    client_id: svc
    client_secret: secret
    token_url: https://auth.example.com/token
    scopes: "jira:read  jira:write"
    service_token: { function: pkg.tokens.get_token, kwargs: { vault: x } }
    token_cache_buffer_seconds: 60
`);
    expect(warnings).toEqual([
      'app.yml:18: authentication.sa.service_token.function: ignored: "pkg.tokens.get_token" is a Python function, which Interlude cannot call; no service token header is sent (give service_token.token instead)',
    ]);
  });

  it('refuses what NAT refuses: both or neither of token and function, a missing field, a token URL that is not http(s)', () => {
    const lines = messages(`${LLM}${group('sa')}authentication:
  sa:
    _type: mcp_service_account
    client_id: svc
    token_url: https://auth.example.com/token
    scopes: [a]
    service_token: { token: t, function: f }
  other:
    _type: mcp_service_account
    client_id: svc
    client_secret: s
    token_url: ftp://auth.example.com/token
    scopes: a
    service_token: { header: X-Token }
`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'app.yml:13: authentication.sa.client_secret: Input should be a valid string',
        'app.yml:22: authentication.other.token_url: token_url must be an http(s) URL',
        "app.yml:24: authentication.other.service_token: Either 'token' or 'function' must be provided in service_token config",
      ]),
    );
  });

  it('refuses a provider that is not declared, one an MCP client cannot send, and stdio with auth', () => {
    const lines = messages(`${LLM}${group('nowhere')}  cal:
    _type: mcp_client
    server: { transport: streamable-http, url: 'http://127.0.0.1:9/mcp', auth_provider: calendar }
  local:
    _type: mcp_client
    server: { transport: stdio, command: node, auth_provider: calendar }
authentication:
  calendar:
    _type: oauth2_auth_code_flow
    client_id: c
    authorization_url: https://auth.example.com/authorize
    token_url: https://auth.example.com/token
`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'app.yml:10: function_groups.jira.server.auth_provider: no entry "nowhere" in authentication',
        'app.yml:13: function_groups.cal.server.auth_provider: "calendar" is oauth2_auth_code_flow; mcp_client takes mcp_service_account or api_key or mcp_oauth2',
        'app.yml:16: function_groups.local.server.auth_provider: Authentication is not supported for stdio transport',
      ]),
    );
  });

  it('checks api_key as NAT does: at least 8 characters, no whitespace, Custom needs its header name and prefix', () => {
    const lines = messages(`${LLM}${group('key')}authentication:
  key: { _type: api_key, raw_key: short, auth_scheme: Custom }
  spaced: { _type: api_key, raw_key: 'has a space', auth_scheme: X-API-Key }
  custom: { _type: api_key, raw_key: '0123456789', auth_scheme: Custom, custom_header_name: 'X Bad' }
`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'app.yml:12: authentication.key.raw_key: raw_key must be at least 8 characters long',
        'app.yml:13: authentication.spaced.raw_key: raw_key must be printable ASCII without whitespace',
        'app.yml:14: authentication.custom.custom_header_name: custom_header_name must be an HTTP header name',
      ]),
    );
    expect(
      parse(`${LLM}${group('key')}authentication:
  key: { _type: api_key, raw_key: '0123456789', auth_scheme: Custom, custom_header_name: X-Key, custom_header_prefix: Token }
`).warnings,
    ).toEqual([]);
  });

  it("accepts dynamo's prediction_trie_path (NAT's alias of nvext_prediction_trie_path) with a warning", () => {
    const { warnings } = parse(`llms:
  m: { _type: dynamo, model_name: x, base_url: 'http://127.0.0.1:9/v1', prediction_trie_path: ./trie.json }
workflow: { _type: tool_calling_agent, llm_name: m, tool_names: [] }
`);
    expect(warnings).toEqual([
      expect.stringMatching(/^app\.yml:2: llms\.m\.prediction_trie_path: ignored: Dynamo's nvext/),
    ]);
  });
});

describe("NAT's mcp_oauth2 provider", () => {
  it("reads NAT's examples: manual client with scopes, or dynamic registration with only the URLs", () => {
    const { warnings } = parse(`${LLM}${group('calc')}authentication:
  calc:
    _type: mcp_oauth2
    server_url: http://localhost:9902/mcp
    redirect_uri: http://localhost:8000/auth/redirect
    client_id: nat-mcp-client
    client_secret: s3cret
    scopes: [calculator_mcp_execute]
  jira:
    _type: mcp_oauth2
    server_url: https://jira.example.com/mcp
    redirect_uri: http://localhost:8000/auth/redirect
`);
    expect(warnings).toEqual([]);
  });

  it("reads NAT's Outlook example: a server without transport is streamable-http, as in NAT", () => {
    const { warnings } = parse(`${LLM}function_groups:
  jira:
    _type: per_user_mcp_client
    server:
      url: https://outlook.example.com/mcp
      auth_provider: outlook
authentication:
  outlook:
    _type: mcp_oauth2
    server_url: https://outlook.example.com/mcp
    redirect_uri: http://localhost:8000/auth/redirect
    client_id: outlook-client
`);
    expect(warnings).toEqual([]);
  });

  it('warns about the fields that configure nothing here: a shared default user, an object store for tokens', () => {
    const { warnings } = parse(`${LLM}${group('a')}authentication:
  a:
    _type: mcp_oauth2
    server_url: https://mcp.example.com/mcp
    default_user_id: ops
    token_storage_object_store: tokens
    use_pkce: false
`);
    expect(warnings).toEqual([
      'app.yml:17: authentication.a.use_pkce: ignored: PKCE (S256) is always used, as the MCP authorization spec requires',
      'app.yml:15: authentication.a.default_user_id: ignored: each user authorizes for themselves: tokens are kept per user, never shared through a default user',
      "app.yml:16: authentication.a.token_storage_object_store: ignored: tokens are kept in Interlude's OAuth token store (memory, or Postgres sealed with the token key when store: postgres)",
    ]);
  });

  it('refuses a provider with neither a client_id nor dynamic registration, and a server_url that is no URL', () => {
    const lines = messages(`${LLM}${group('a')}authentication:
  a:
    _type: mcp_oauth2
    server_url: mcp.example.com
    enable_dynamic_registration: false
`);
    expect(lines).toEqual(
      expect.arrayContaining(['app.yml:14: authentication.a.server_url: server_url must be an http(s) URL']),
    );
    const manual = messages(`${LLM}${group('a')}authentication:
  a:
    _type: mcp_oauth2
    server_url: https://mcp.example.com/mcp
    enable_dynamic_registration: false
`);
    expect(manual.join('\n')).toMatch(
      /authentication\.a\.client_id: Must provide either: 1\) enable_dynamic_registration=True without client_id/,
    );
  });
});
