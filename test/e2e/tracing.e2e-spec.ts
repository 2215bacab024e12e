import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import OpenAI from 'openai';
import type { ObservabilityTrace } from '../../src/core/tracing/observability-trace';
import { createApp } from '../../src/main';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { linesWith, postJson, postStream, traceLine, type StreamResult } from '../utils/sse';
import { registryWith } from '../utils/test-function';
import { configFrom, eventually, failingYaml, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

/** What the test workflow saw of its run. */
interface Seen {
  trace: ObservabilityTrace;
  executionId: string;
  userId: string | null;
}

/** A workflow that runs one tool step, logs through Nest's Logger and answers with `ctx.trace`. */
function traceitRegistry() {
  return registryWith('traceit', async (_input, ctx) => {
    await ctx.step('lookup', 'tool', async () => 42);
    new Logger('traceit').log('looked it up');
    const seen: Seen = { trace: ctx.trace, executionId: ctx.executionId, userId: ctx.identity.userId };
    return seen;
  });
}

const TRACEIT = 'workflow:\n  _type: traceit\n';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const HEX32 = /^[0-9a-f]{32}$/;
const user = (content: string) => ({ messages: [{ role: 'user', content }] });

/** Every JSON line an app logged. */
class LogCapture {
  readonly lines: string[] = [];
  write(chunk: string): void {
    this.lines.push(...chunk.split('\n').filter(Boolean));
  }
  get entries(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

async function startLoggedApp(yaml: string, log: LogCapture): Promise<TestApp> {
  const config = configFrom(yaml, {}, traceitRegistry());
  const app = await createApp(config, { log: { level: 'info', destination: log } });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

const traceOf = (res: { headers: Headers }) => res.headers.get('observability-trace-id');

// First in the file: nestjs-pino keeps the first app's logger for lines logged outside a request.
describe('logs: one JSON line per request, with its ids, and no credentials', () => {
  const log = new LogCapture();
  let t: TestApp;
  beforeAll(async () => (t = await startLoggedApp(TRACEIT, log)));
  afterAll(() => t.close());

  it("the request's line carries its request id, user id, execution id and trace id", async () => {
    const res = await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'hi' },
      { traceparent: TRACEPARENT, 'x-api-key': 'nvapi-logged-never' },
    );
    expect(res.status).toBe(200);
    const seen = res.json as unknown as Seen;
    const reqId = res.headers.get('x-request-id');
    expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
    const line = await eventually(() => {
      const found = log.entries.find((e) => e.reqId === reqId && e.msg === 'request completed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(line).toMatchObject({
      level: 30,
      reqId,
      userId: seen.userId,
      executionId: seen.executionId,
      traceId: TRACE_ID,
      req: { method: 'POST', url: '/v1/workflow' },
      res: { statusCode: 200 },
    });
    expect(seen.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line.responseTime).toBe('number');
  });

  it("Nest's Logger goes through pino, bound to the request and its execution", async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    const seen = res.json as unknown as Seen;
    const line = log.entries.find((e) => e.msg === 'looked it up' && e.executionId === seen.executionId);
    expect(line).toMatchObject({
      context: 'traceit',
      reqId: res.headers.get('x-request-id'),
      traceId: traceOf(res),
      userId: null,
    });
    // Nest's own start-up lines are JSON too
    expect(log.entries.some((e) => e.context === 'RoutesResolver')).toBe(true);
  });

  it('a sane X-Request-Id from the caller is kept and echoed', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, { 'x-request-id': 'req-42' });
    expect(res.headers.get('x-request-id')).toBe('req-42');
    await eventually(() => expect(log.entries.some((e) => e.reqId === 'req-42')).toBe(true));
    const odd = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, { 'x-request-id': 'a b\n' });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never logs Authorization, Cookie or X-API-Key values, nor the OAuth callback query', async () => {
    await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'hi' },
      { authorization: 'Bearer token-logged-never', cookie: 'nat-session=cookie-logged-never; other=1' },
    );
    const callback = await fetch(`${t.url}/auth/redirect?code=code-logged-never&state=state-logged-never`);
    await callback.text();
    const line = await eventually(() => {
      const found = log.entries.find(
        (e) => (e.req as { url?: string } | undefined)?.url === '/auth/redirect',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(line.res).toEqual({ statusCode: callback.status });
    const text = log.lines.join('\n');
    expect(text).toContain('"user-agent"'); // headers are logged, only the credentials are not
    for (const secret of [
      'token-logged-never',
      'cookie-logged-never',
      'nvapi-logged-never',
      'code-logged-never',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('state-logged-never');
  });

  it('a request refused before routing (malformed JSON) is logged too', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, '{"input_message": ', { 'x-request-id': 'bad-json' });
    expect(res.status).toBe(422);
    expect(traceOf(res)).toBeNull(); // no execution, no trace id
    await eventually(() =>
      expect(log.entries.find((e) => e.reqId === 'bad-json')).toMatchObject({ res: { statusCode: 422 } }),
    );
  });
});

describe('observability trace ids: from traceparent, workflow-trace-id, or new', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  const run = async (headers: Record<string, string>) => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, headers);
    expect(res.status).toBe(200);
    const seen = res.json as unknown as Seen;
    // the workflow and the client see the same id
    expect(seen.trace.traceId).toBe(traceOf(res));
    return seen.trace;
  };

  it("takes a valid traceparent's trace-id", async () => {
    expect((await run({ traceparent: TRACEPARENT })).traceId).toBe(TRACE_ID);
  });

  it.each([
    ['a UUID', '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f', '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f'],
    [
      'a UUID in capitals (kept, lowercased)',
      '0198C3A1-7E2F-7B6C-9D4E-1A2B3C4D5E6F',
      '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f',
    ],
    ['32 hex digits', 'a3ce929d0e0e47364bf92f3577b34da6', 'a3ce929d0e0e47364bf92f3577b34da6'],
  ])('takes a workflow-trace-id that is %s', async (_name, sent, expected) => {
    expect((await run({ 'workflow-trace-id': sent })).traceId).toBe(expected);
  });

  it('prefers traceparent to workflow-trace-id, as NAT does', async () => {
    const trace = await run({
      traceparent: TRACEPARENT,
      'workflow-trace-id': 'a3ce929d0e0e47364bf92f3577b34da6',
    });
    expect(trace.traceId).toBe(TRACE_ID);
  });

  it('falls back to workflow-trace-id when traceparent is invalid', async () => {
    const trace = await run({
      traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      'workflow-trace-id': 'a3ce929d0e0e47364bf92f3577b34da6',
    });
    expect(trace.traceId).toBe('a3ce929d0e0e47364bf92f3577b34da6');
  });

  it('makes a new one (32 hex, different each time) when there is none', async () => {
    const a = await run({});
    const b = await run({});
    expect(a.traceId).toMatch(HEX32);
    expect(b.traceId).toMatch(HEX32);
    expect(a.traceId).not.toBe(b.traceId);
  });

  it.each([
    [
      'traceparent with an all-zero trace-id',
      { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
    ],
    ['traceparent with an all-zero parent-id', { traceparent: `00-${TRACE_ID}-0000000000000000-01` }],
    ['traceparent in capitals', { traceparent: TRACEPARENT.toUpperCase() }],
    ['traceparent of another version', { traceparent: `01-${TRACE_ID}-00f067aa0ba902b7-01` }],
    ['traceparent with a short trace-id', { traceparent: `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01` }],
    ['workflow-trace-id that is no id', { 'workflow-trace-id': 'not-a-trace' }],
    ['workflow-trace-id of zeros', { 'workflow-trace-id': '00000000-0000-0000-0000-000000000000' }],
  ])('makes a new one for %s', async (_name, headers) => {
    const trace = await run(headers);
    expect(trace.traceId).toMatch(HEX32);
    expect(trace.traceId).not.toBe(TRACE_ID);
  });

  it("hands NAT's cross-workflow headers to the workflow as ctx.trace", async () => {
    const trace = await run({
      traceparent: TRACEPARENT,
      'conversation-id': 'conv-1',
      'user-message-id': 'msg-7',
      'workflow-run-id': 'run-3',
      'workflow-parent-id': 'parent-9',
      'workflow-parent-name': 'planner',
    });
    expect(trace).toEqual({
      traceId: TRACE_ID,
      conversationId: 'conv-1',
      userMessageId: 'msg-7',
      workflowRunId: 'run-3',
      workflowParentId: 'parent-9',
      workflowParentName: 'planner',
    });
    expect(await run({})).toEqual({ traceId: expect.stringMatching(HEX32) as unknown });
  });
});

describe('Observability-Trace-Id on non-streaming responses', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  it.each([
    ['/v1/workflow', { input_message: 'hi' }],
    ['/generate', { input_message: 'hi' }],
    ['/v1/chat', user('hi')],
    ['/chat', user('hi')],
    ['/v1/chat/completions', { ...user('hi'), model: 'm' }],
  ])('POST %s answers with the header', async (path, body) => {
    const res = await postJson(`${t.url}${path}`, body, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    expect(traceOf(res)).toBe(TRACE_ID);
    const fresh = await postJson(`${t.url}${path}`, body);
    expect(traceOf(fresh)).toMatch(HEX32);
  });

  it('a request refused before the workflow starts (invalid body) has no trace id', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { nope: 1 }, { traceparent: TRACEPARENT });
    expect(res.status).toBe(422);
    expect(traceOf(res)).toBeNull();
  });

  it('the OpenAI SDK reads the id from the raw response', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const { response } = await client.chat.completions
      .create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: TRACEPARENT } },
      )
      .withResponse();
    expect(response.headers.get('observability-trace-id')).toBe(TRACE_ID);
  });
});

describe('Observability-Trace-Id on 202 and on errors after the start', () => {
  it('a paused execution (202) carries it', async () => {
    const t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: n }`, '{{n}}'),
    );
    try {
      const res = await postJson(
        `${t.url}/v1/workflow`,
        { input_message: 'x' },
        { traceparent: TRACEPARENT },
      );
      expect(res.status).toBe(202);
      expect(traceOf(res)).toBe(TRACE_ID);
      await fetch(`${t.url}/executions/${res.json.execution_id as string}`, { method: 'DELETE' });
    } finally {
      await t.close();
    }
  });

  it.each([
    ['/v1/workflow', { input_message: 'x' }],
    ['/generate', { input_message: 'x' }],
    ['/v1/chat', user('x')],
    ['/v1/chat/completions', user('x')],
  ])('a workflow failure (422) on %s carries it', async (path, body) => {
    const t = await startApp(failingYaml(''));
    try {
      const res = await postJson(`${t.url}${path}`, body, { 'workflow-trace-id': TRACE_ID });
      expect(res.status).toBe(422);
      expect(traceOf(res)).toBe(TRACE_ID);
    } finally {
      await t.close();
    }
  });
});

describe('streams: one observability_trace line, first', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  const expectTraceFirst = (res: StreamResult, traceId: string) => {
    expect(res.status).toBe(200);
    expect(res.lines[0]).toBe(traceLine(traceId));
    expect(linesWith(res, 'observability_trace')).toEqual([{ observability_trace_id: traceId }]);
    expect(traceOf(res)).toBe(traceId);
  };

  it.each([
    ['/v1/workflow/stream', { input_message: 'hi' }],
    ['/v1/workflow/full', { input_message: 'hi' }],
    ['/generate/stream', { input_message: 'hi' }],
    ['/generate/full', { input_message: 'hi' }],
    ['/v1/chat/stream', user('hi')],
    ['/chat/stream', user('hi')],
    ['/v1/chat/completions', { ...user('hi'), stream: true }],
  ])('POST %s', async (path, body) => {
    expectTraceFirst(await postStream(`${t.url}${path}`, body, { traceparent: TRACEPARENT }), TRACE_ID);
    const fresh = await postStream(`${t.url}${path}`, body);
    expectTraceFirst(fresh, traceOf(fresh)!);
    expect(traceOf(fresh)).toMatch(HEX32);
  });

  it('comes before the first intermediate step, and without an id on interactive streams', async () => {
    const res = await postStream(`${t.url}/v1/workflow/full`, { input_message: 'hi' });
    expect(res.lines[0]).toMatch(/^observability_trace: /);
    expect(res.lines[1]).toMatch(/^id: 1$/);
    expect(res.lines[2]).toMatch(/^intermediate_data: /);
  });

  it('the OpenAI SDK still reads the stream', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(JSON.parse(text)).toMatchObject({ trace: { traceId: expect.stringMatching(HEX32) as unknown } });
  });
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}

interface Collector {
  spans: OtlpSpan[];
  url: string;
  close(): Promise<unknown>;
}

/** A local OTLP/HTTP (JSON) collector. */
async function startCollector(): Promise<Collector> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const json = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of json.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { spans, url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;

describe('OpenTelemetry in-process: spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
  let collector: Collector;
  const env = { ...process.env };
  const seen: { traceparent?: Seen; uuid?: Seen; failed?: string; modelTraceparent?: unknown } = {};

  beforeAll(async () => {
    collector = await startCollector();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    const llm = await FakeLlm.start();
    const agent = await startApp(agentYaml(llm, { _type: 'tool_calling_agent' }));
    try {
      llm.script(reply.text('ok'));
      const res = await postJson(
        `${agent.url}/v1/workflow`,
        { input_message: 'hi' },
        { traceparent: TRACEPARENT },
      );
      expect(res.status).toBe(200);
      seen.modelTraceparent = llm.requests[0]?.headers.traceparent;
    } finally {
      await agent.close();
      await llm.close();
    }
    const t = await startApp(TRACEIT, traceitRegistry());
    try {
      const ask = async (headers: Record<string, string>) =>
        (await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, headers)).json as unknown as Seen;
      seen.traceparent = await ask({ traceparent: TRACEPARENT, 'conversation-id': 'conv-otel' });
      seen.uuid = await ask({ 'workflow-trace-id': '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f' });
    } finally {
      await t.close(); // flushes the spans still batched
    }
    // a second app in the same process starts the SDK again
    const failing = await startApp(failingYaml(''));
    try {
      seen.failed = traceOf(await postJson(`${failing.url}/v1/workflow`, { input_message: 'x' }))!;
    } finally {
      await failing.close();
    }
  });

  afterAll(async () => {
    process.env = env;
    await collector.close();
  });

  const executionSpan = (traceId: string, workflow = 'traceit') => {
    const span = collector.spans.find((s) => s.name === `workflow ${workflow}` && s.traceId === traceId);
    expect(span).toBeDefined();
    return span!;
  };

  it("a span per execution, in the client's trace, with its ids as attributes", () => {
    const span = executionSpan(TRACE_ID);
    expect(attr(span, 'interlude.observability_trace_id')).toBe(TRACE_ID);
    expect(attr(span, 'interlude.execution.id')).toBe(seen.traceparent!.executionId);
    expect(attr(span, 'interlude.workflow')).toBe('traceit');
    expect(attr(span, 'interlude.conversation_id')).toBe('conv-otel');
    expect(attr(span, 'interlude.execution.outcome')).toBe('completed');
  });

  it("a model call carries a traceparent in the request's trace, and has a client span", () => {
    expect(seen.modelTraceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const spanId = String(seen.modelTraceparent).split('-')[2];
    const client = collector.spans.find((s) => s.spanId === spanId);
    expect(client).toMatchObject({ kind: 3, traceId: TRACE_ID });
  });

  it('each ctx.step is a child span of its execution', () => {
    const span = executionSpan(TRACE_ID);
    const step = collector.spans.find((s) => s.name === 'lookup' && s.parentSpanId === span.spanId);
    expect(step).toBeDefined();
    expect(attr(step!, 'interlude.step.kind')).toBe('tool');
  });

  it('a workflow-trace-id UUID is the trace id, without its dashes', () => {
    const span = executionSpan('0198c3a17e2f7b6c9d4e1a2b3c4d5e6f');
    expect(attr(span, 'interlude.observability_trace_id')).toBe('0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f');
  });

  it("a failed execution's span has an error status", () => {
    const span = executionSpan(seen.failed!, 'scripted');
    expect(span.status?.code).toBe(2);
    expect(attr(span, 'error.type')).toBe('ValueError');
    expect(attr(span, 'interlude.execution.outcome')).toBe('failed');
  });
});

const ROOT = resolve(__dirname, '..', '..');

/**
 * Runs `interlude serve` from the TypeScript sources in a real Node process (SWC compiles them as Jest
 * does): Jest's module sandbox hides `http` from OpenTelemetry's require hook, a real process does not.
 */
const SERVE_FROM_SOURCES = `
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
process.argv.splice(1, 0, 'interlude');
require('./src/cli.ts');
`;

async function serveFromSources(env: NodeJS.ProcessEnv) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      SERVE_FROM_SOURCES,
      'serve',
      '--config',
      'config/default.yml',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
    ],
    { cwd: ROOT, env: { ...process.env, ...env } },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | string | null>((done) =>
    child.on('exit', (code, signal) => done(code ?? signal)),
  );
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`serve did not start:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const match = /^Interlude serving .* at (http:\/\/\S+)/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    });
    void exited.then((code) => fail(new Error(`serve exited (${code}):\n${stdout}\n${stderr}`)));
  });
  return {
    url,
    output: () => stdout,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('OpenTelemetry in `interlude serve`: HTTP server spans around the executions', () => {
  jest.setTimeout(60_000);
  let collector: Collector;
  const traces: { none?: string; uuid?: string } = {};
  let logs = '';

  beforeAll(async () => {
    collector = await startCollector();
    const server = await serveFromSources({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      LOG_LEVEL: 'warn',
    });
    try {
      const ask = (headers: Record<string, string>) =>
        postJson(`${server.url}/v1/workflow`, { input_message: 'a weekend' }, headers);
      expect((await ask({ traceparent: TRACEPARENT })).status).toBe(200);
      traces.none = traceOf(await ask({}))!;
      traces.uuid = traceOf(await ask({ 'workflow-trace-id': '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f' }))!;
    } finally {
      // SIGTERM: the app closes, flushes the spans still batched, and Nest re-raises the signal
      expect(await server.stop()).toBe('SIGTERM');
      logs = server.output();
    }
  });

  afterAll(() => collector.close());

  const execution = (traceId: string) => {
    const span = collector.spans.find((s) => s.name === 'workflow scripted' && s.traceId === traceId);
    expect(span).toBeDefined();
    return span!;
  };
  const parentOf = (span: OtlpSpan) => collector.spans.find((s) => s.spanId === span.parentSpanId);

  it("with traceparent: execution span → HTTP server span → the caller's span", () => {
    const server = parentOf(execution(TRACE_ID));
    expect(server).toMatchObject({
      kind: 2,
      name: 'POST',
      traceId: TRACE_ID,
      parentSpanId: '00f067aa0ba902b7',
    });
    const steps = collector.spans.filter((s) => s.parentSpanId === execution(TRACE_ID).spanId);
    expect(steps.map((s) => s.name)).toEqual(
      expect.arrayContaining(['search_destinations', 'weather_lookup']),
    );
  });

  it("without a header: the trace id the client got is the HTTP server span's", () => {
    expect(traces.none).toMatch(HEX32);
    expect(parentOf(execution(traces.none!))).toMatchObject({ kind: 2, traceId: traces.none });
  });

  it('with workflow-trace-id: a trace of that id, linked to the HTTP server span', () => {
    expect(traces.uuid).toBe('0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f');
    const span = execution('0198c3a17e2f7b6c9d4e1a2b3c4d5e6f');
    expect(span.parentSpanId ?? '').toBe('');
    const linked = collector.spans.find((s) => s.spanId === span.links?.[0]?.spanId);
    expect(linked).toMatchObject({ kind: 2, name: 'POST' });
  });

  it('LOG_LEVEL=warn keeps the info lines out', () => {
    expect(logs).not.toContain('"level":30');
  });
});
