import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { McpClients } from './mcp-clients.service';
import { McpController } from './mcp.controller';

describe("MCP client tool list (the NAT UI's MCP button)", () => {
  let t: SlimApp;
  beforeAll(async () => (t = await slimApp({ controllers: [McpController], providers: [McpClients] })));
  afterAll(() => t.close());

  it('answers other methods with 405 and Allow: GET', async () => {
    const res = await fetch(`${t.url}/mcp/client/tool/list`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});
