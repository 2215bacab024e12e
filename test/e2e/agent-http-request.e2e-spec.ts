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
  let other: string;
  let t: TestApp;
  const seen: { method?: string; url?: string; headers: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    llm = await FakeLlm.start();
    api = createServer((req, res) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers });
      if (req.url?.startsWith('/big'))
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
      else if (req.url?.startsWith('/missing')) res.writeHead(404).end('{"detail":"no such item"}');
      else if (req.url?.startsWith('/elsewhere')) res.writeHead(302, { location: `${other}/secret` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    // the same server under another origin (allowed too): only the origin check keeps a redirect from it
    other = `http://localhost:${(api.address() as AddressInfo).port}`;
    const functions = {
      get_item: {
        _type: 'http_request',
        url: `${base}/items/{{id}}?q={{q}}`,
        headers: { 'X-Api-Key': 'k1' },
        description: 'Reads an item',
      },
      big: { _type: 'http_request', url: `${base}/big`, max_response_bytes: 100 },
      missing: { _type: 'http_request', url: `${base}/missing` },
      elsewhere: { _type: 'http_request', url: `${base}/elsewhere`, headers: { 'X-Api-Key': 'internal' } },
      metadata: { _type: 'http_request', url: 'http://169.254.169.254/latest/meta-data' },
      closed: { _type: 'http_request', url: 'http://127.0.0.1:9/v1?api-key=s3cret' },
    };
    const general = { general: { outbound: { allow_hosts: ['127.0.0.1', 'localhost'] } } };
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: Object.keys(functions) },
        functions,
        {},
        general,
      ),
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

  /** Runs one turn in which the model calls `calls`; what the model then read of each tool. */
  async function toolResults(...calls: { name: string; arguments: Record<string, unknown> }[]) {
    llm.script(reply.tools(calls), reply.text('Done.'));
    const res = await postJson(`${t.url}/v1/workflow/full`, { input_message: 'go' });
    expect(res.status).toBe(200);
    return {
      read: llm.requests[1].body.messages.slice(-calls.length).map((m) => m.content!),
      stream: res.text,
    };
  }

  it('does not follow a redirect to another origin: the configured headers stay with the configured host', async () => {
    const { read } = await toolResults({ name: 'elsewhere', arguments: {} });
    expect(JSON.parse(read[0])).toMatchObject({ status: 302, redirect_not_followed: `${other}/secret` });
    expect(seen.map((r) => r.url)).toEqual(['/elsewhere']);
  });

  it.each([['..'], ['.'], ['%2e%2e'], ['%252E%252E'], ['a/../../admin'], ['a\\..\\b']])(
    'refuses the path argument %j, without calling the API',
    async (id) => {
      const { read } = await toolResults({ name: 'get_item', arguments: { id, q: 'x' } });
      expect(read[0]).toMatch(/may not be "\." or "\.\."/);
      expect(seen).toEqual([]);
    },
  );

  it('refuses private and link-local destinations that are not allowed (169.254.169.254)', async () => {
    const { read } = await toolResults({ name: 'metadata', arguments: {} });
    expect(read[0]).toContain('requests to 169.254.169.254 are refused');
    expect(read[0]).toContain('general.outbound.allow_hosts');
  });

  it("never shows a configured URL's query string (a secret) to the model or in the steps", async () => {
    const { read, stream } = await toolResults({ name: 'closed', arguments: {} });
    expect(read[0]).toContain('http://127.0.0.1:9/v1?…');
    expect(read[0]).not.toContain('s3cret');
    expect(stream).toContain('TOOL_END');
    expect(stream).not.toContain('s3cret');
  });
});
