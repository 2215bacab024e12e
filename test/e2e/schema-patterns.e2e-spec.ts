import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { serve, stop, stopServersAfterEach, type Serving } from '../utils/cli';
import { FakeLlm, reply } from '../utils/fake-llm';
import { HttpMcpServer } from '../utils/mcp-servers';
import { WAIT_MS } from '../utils/timing';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { patternMcpServer } = require('../utils/mcp-tools.js') as typeof import('../utils/mcp-tools.js');

// A `pattern` in a JSON Schema is checked on the event loop. Written by a remote MCP server or an
// operator, and matched against what a model or a caller sends, it must never hold the server: each
// run is answered within a deadline while /health keeps answering. The server runs as its own process
// (`interlude serve`), so a server that freezes fails the test instead of freezing the test.

/** Catastrophic for a backtracking engine against `^(a+)+$` and `^([a-z]+)*$`: 2^34 ways to fail. */
const HOSTILE = `${'a'.repeat(34)}!`;

describe('schema patterns against what a model or a caller sends', () => {
  stopServersAfterEach();
  let llm: FakeLlm;
  let mcp: HttpMcpServer;
  let api: Server;
  let apiUrl: string;
  const posted: string[] = [];
  let dir: string;
  let app: Serving | undefined;

  beforeAll(async () => {
    llm = await FakeLlm.start();
    mcp = await HttpMcpServer.start(undefined, patternMcpServer);
    api = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        posted.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'interlude-patterns-'));
  });
  afterEach(async () => {
    if (app) await stop(app.child);
    app = undefined;
    llm.reset();
    posted.length = 0;
  });
  afterAll(async () => {
    await mcp.stop();
    await llm.close();
    await new Promise((r) => api.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const post = {
    _type: 'http_request',
    url: `{{API}}/orders`,
    method: 'POST',
    body_schema: { type: 'object', properties: { s: { type: 'string', pattern: '^([a-z]+)*$' } } },
  };

  async function start(config: Record<string, unknown>): Promise<string> {
    const file = join(dir, `app-${Date.now()}.yml`);
    writeFileSync(file, stringify(config).replaceAll('{{API}}', apiUrl));
    app = await serve(['--config', file, '--host', '127.0.0.1', '--port', '0']);
    return app.url;
  }

  function agent(): Promise<string> {
    return start({
      general: { outbound: { allow_hosts: ['127.0.0.1'] } },
      llms: { model: { _type: 'openai', base_url: llm.url, model_name: 'm', api_key: 'k', max_retries: 0 } },
      functions: { post },
      function_groups: { p: { _type: 'mcp_client', server: { url: mcp.url } } },
      workflow: { _type: 'tool_calling_agent', llm_name: 'model', tool_names: ['p', 'post'] },
    });
  }

  /** POSTs `body` to /v1/workflow within the deadline, asking /health every 200 ms until it is answered. */
  async function runWatchingHealth(url: string, body: unknown) {
    const answer = fetch(`${url}/v1/workflow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(WAIT_MS),
    }).then(async (res) => ({ status: res.status, json: (await res.json()) as Record<string, unknown> }));
    let done = false;
    const health: number[] = [];
    const watching = (async () => {
      while (!done) {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
        health.push(res.status);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      return await answer;
    } finally {
      done = true;
      await watching;
      expect(health.every((s) => s === 200)).toBe(true);
    }
  }

  /** What the model read back from each tool it called in one turn. */
  async function modelReads(
    url: string,
    ...calls: { name: string; arguments: unknown }[]
  ): Promise<string[]> {
    llm.script(reply.tools(calls.map((c, i) => ({ ...c, id: `c${i}` }))), reply.text('done'));
    const { status } = await runWatchingHealth(url, { input_message: 'go' });
    expect(status).toBe(200);
    return llm.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
  }

  it("an MCP tool's pattern against the model's argument: the model reads the mismatch, /health answers", async () => {
    const url = await agent();
    const [hostile] = await modelReads(url, { name: 'p__nested', arguments: { word: HOSTILE } });
    expect(hostile).toBe('Error: Invalid arguments: word must match pattern "^(a+)+$"');
    const [fitting] = await modelReads(url, { name: 'p__nested', arguments: { word: 'aaaa' } });
    expect(fitting).toBe('got aaaa');
    expect(mcp.calls).toEqual([{ name: 'nested', arguments: { word: 'aaaa' } }]);
  });

  it('an MCP tool whose pattern RE2 cannot compile answers the model why, and is never called', async () => {
    const url = await agent();
    const [answer] = await modelReads(url, { name: 'p__backref', arguments: { word: 'aa' } });
    expect(answer).toContain(
      'tool backref: its input schema does not compile: pattern "^(a)\\\\1$" is not supported',
    );
    expect(app!.output().stdout + app!.output().stderr).toContain('its input schema does not compile');
    expect(mcp.calls.filter((c) => c.name === 'backref')).toEqual([]);
  });

  it("http_request's body_schema pattern against the model's body: the model reads the mismatch", async () => {
    const url = await agent();
    const [hostile, fitting] = await modelReads(
      url,
      { name: 'post', arguments: { body: { s: HOSTILE } } },
      { name: 'post', arguments: { body: { s: 'abc' } } },
    );
    expect(hostile).toBe('Error: Invalid arguments: body.s must match pattern "^([a-z]+)*$"');
    expect(JSON.parse(fitting)).toEqual({ status: 200, body: { ok: true } });
    expect(posted).toEqual(['{"s":"abc"}']);
  });

  it("a caller's workflow input against the operator's pattern is refused, naming the field", async () => {
    const url = await start({ general: { outbound: { allow_hosts: ['127.0.0.1'] } }, workflow: post });
    const refused = await runWatchingHealth(url, { body: { s: HOSTILE } });
    expect(JSON.stringify(refused.json)).toContain('body.s must match pattern');
    expect(posted).toEqual([]);
    const accepted = await runWatchingHealth(url, { body: { s: 'abc' } });
    expect(accepted.status).toBe(200);
    expect(posted).toEqual(['{"s":"abc"}']);
  });
});
