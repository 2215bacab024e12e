import type { OpenAPIV3 } from 'openapi-types';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

describe("MCP client tool list (the NAT UI's MCP button)", () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it.each(['/mcp/client/tool/list', '/mcp/client/tool/list/per_user'])(
    'GET %s lists no MCP clients when none is configured',
    async (path) => {
      const res = await fetch(`${t.url}${path}`, { headers: { cookie: 'nat-session=ana' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ mcp_clients: [] });
    },
  );

  it("is documented with NAT's response model, ready for real clients", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3.Document;
    for (const path of ['/mcp/client/tool/list', '/mcp/client/tool/list/per_user']) {
      const ok = doc.paths[path]?.get?.responses['200'] as OpenAPIV3.ResponseObject;
      expect(ok.content?.['application/json'].schema).toEqual({
        $ref: '#/components/schemas/McpClientToolListDto',
      });
    }
    const schemas = doc.components?.schemas ?? {};
    const client = schemas.McpClientDto as OpenAPIV3.SchemaObject;
    expect(Object.keys(client.properties ?? {}).sort()).toEqual(
      [
        'available_tools',
        'error',
        'function_group',
        'protected',
        'server',
        'session_healthy',
        'tools',
        'total_tools',
        'transport',
      ].sort(),
    );
    const tool = schemas.McpToolDto as OpenAPIV3.SchemaObject;
    expect(Object.keys(tool.properties ?? {}).sort()).toEqual(['available', 'description', 'name', 'server']);
  });
  // Other methods (405): src/mcp/mcp.controller.spec.ts (slim app).
});
