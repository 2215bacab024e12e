import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { failingYaml, startApp } from '../utils/test-app';
import { type Seen, traceitRegistry, TRACEIT, TRACE_ID, TRACEPARENT, HEX32, traceOf } from '../utils/traceit';

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
