import net from 'node:net';
import { rawRequest, unchunk } from '../utils/raw-http';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const FAILING_YAML = scriptedYaml(
  `- stream: { text: 'partial answer' }
- fail: { message: 'tool exploded', error_type: ValueError }`,
);
const ERROR_LINE = JSON.stringify({
  code: 'workflow_error',
  message: 'tool exploded',
  details: 'ValueError',
});

describe('streams on the wire', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(FAILING_YAML)));
  afterAll(() => t.close());

  const body = JSON.stringify({ input_message: 'go' });
  const json = { 'Content-Type': 'application/json' };

  it.each(['/generate/stream', '/generate/full'])(
    'a legacy %s error line arrives alone in its network chunk, as the NAT UI needs',
    async (path) => {
      // The server sends the line apart after a pause; a test process descheduled for longer than
      // that reads everything at once, so a busy machine gets three tries.
      let reads: string[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const req = rawRequest(t.url, 'POST', path, { ...json, Connection: 'close' }, body);
        await req.closedByServer;
        reads = req.reads;
        if (unchunk(reads.find((r) => r.includes('workflow_error')) ?? '') === `${ERROR_LINE}\n`) break;
      }
      const errorReads = reads.filter((r) => r.includes('workflow_error'));
      expect(errorReads).toHaveLength(1);
      expect(unchunk(errorReads[0])).toBe(`${ERROR_LINE}\n`);
      expect(reads.join('')).toContain('partial ');
    },
  );

  it('a stream requested with Connection: close is answered so and the socket closes when it ends', async () => {
    const req = rawRequest(t.url, 'POST', '/v1/workflow/stream', { ...json, Connection: 'close' }, body);
    await eventually(() => expect(req.head()).toMatch(/^HTTP\/1\.1 200/));
    expect(req.head().toLowerCase()).toContain('connection: close');
    expect(req.head().toLowerCase()).not.toContain('keep-alive');
    await req.closedByServer;
    expect(req.reads.join('')).toContain('event: error');
  });

  it('a keep-alive stream request keeps its connection for the next request', async () => {
    const req = rawRequest(t.url, 'POST', '/v1/workflow/stream', json, body);
    await eventually(() => expect(req.reads.join('')).toContain('0\r\n\r\n'));
    expect(req.head().toLowerCase()).toContain('connection: keep-alive');
    expect(req.socket.readyState).toBe('open');
    req.socket.destroy();
  });

  it('an idle keep-alive connection stays open past Node’s 5 s default, so a gateway can reuse it', async () => {
    const req = rawRequest(t.url, 'GET', '/health', {});
    await eventually(() => expect(req.reads.join('')).toMatch(/^HTTP\/1\.1 200/));
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(req.socket.readyState).toBe('open');
    const before = req.reads.join('').length;
    req.socket.write(`GET /health HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\n\r\n`);
    await eventually(() => expect(req.reads.join('').slice(before)).toMatch(/^HTTP\/1\.1 200/));
    req.socket.destroy();
  }, 15_000);

  it('a stopping server does not wait for kept-alive connections, nor for one that never sent a request', async () => {
    const own = await startApp(FAILING_YAML);
    const { hostname, port } = new URL(own.url);
    const used = rawRequest(own.url, 'GET', '/health', {});
    await eventually(() => expect(used.reads.join('')).toMatch(/^HTTP\/1\.1 200/));
    const unused = net.connect(Number(port), hostname);
    await new Promise((resolve) => unused.once('connect', resolve));
    const stopping = Date.now();
    await own.close();
    // Either would hold the close for keep_alive_seconds (65 s) or headersTimeout (66 s).
    expect(Date.now() - stopping).toBeLessThan(10_000);
    await eventually(() => expect([used.socket.readyState, unused.readyState]).toEqual(['closed', 'closed']));
  });
});
