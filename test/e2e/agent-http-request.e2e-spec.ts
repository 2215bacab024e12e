import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

describe('http_request', () => {
  let llm: FakeLlm;
  let api: Server;
  let base: string;
  let t: TestApp;
  const seen: { method?: string; url?: string; headers: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    llm = await FakeLlm.start();
    api = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      if (req.url?.startsWith('/big'))
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
      else if (req.url?.startsWith('/missing')) res.writeHead(404).end('{"detail":"no such item"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const functions = {
      get_item: {
        _type: 'http_request',
        url: `${base}/items/{{id}}?q={{q}}`,
        headers: { 'X-Api-Key': 'k1' },
        description: 'Reads an item',
      },
      big: { _type: 'http_request', url: `${base}/big`, max_response_bytes: 100 },
      missing: { _type: 'http_request', url: `${base}/missing` },
    };
    t = await startApp(
      agentYaml(llm, { _type: 'tool_calling_agent', tool_names: Object.keys(functions) }, functions),
    );
  });
  afterEach(() => {
    llm.reset();
    seen.length = 0;
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
    await new Promise((r) => api.close(r));
  });

  it("fills the URL placeholders (URL-encoded) from the model's arguments and sends the configured headers", async () => {
    llm.script(reply.tools([{ name: 'get_item', arguments: { id: 'a/b', q: 'x y' } }]), reply.text('Done.'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'read it' });
    expect(seen).toEqual([
      { method: 'GET', url: '/items/a%2Fb?q=x%20y', headers: expect.objectContaining({ 'x-api-key': 'k1' }) },
    ]);
    expect(JSON.parse(llm.lastMessage(1).content!)).toEqual({ status: 200, body: { ok: true } });
    expect(llm.requests[0].body.tools![0].function.parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, q: { type: 'string' } },
      required: ['id', 'q'],
      additionalProperties: false,
    });
  });

  it('cuts a response at max_response_bytes, and shows the model an error status as it is', async () => {
    llm.script(
      reply.tools([
        { name: 'big', arguments: {} },
        { name: 'missing', arguments: {} },
      ]),
      reply.text('Done.'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: 'read them' });
    const [big, missing] = llm.requests[1].body.messages
      .slice(-2)
      .map((m) => JSON.parse(m.content!) as unknown);
    expect(big).toEqual({ status: 200, body: 'x'.repeat(100), truncated: true });
    expect(missing).toEqual({ status: 404, body: { detail: 'no such item' } });
  });
});
