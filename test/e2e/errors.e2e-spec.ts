import http from 'node:http';
import { dataOf, linesWith, postJson, postStream, traceLine } from '../utils/sse';
import { ECHO_YAML, eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { probeRegistry } from '../utils/probe-function';

const FAILING_YAML = scriptedYaml(
  `- step: { name: lookup, kind: tool, input: x, payload: y }
- stream: { text: 'partial answer' }
- fail: { message: 'tool exploded', error_type: ValueError }`,
);

const WORKFLOW_ERROR = { code: 'workflow_error', message: 'tool exploded', details: 'ValueError' };

describe('a workflow that throws', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(FAILING_YAML)));
  afterAll(() => t.close());

  it.each(['/v1/workflow', '/generate'])(
    'POST %s answers 422 with code, message and error type',
    async (path) => {
      const res = await postJson(`${t.url}${path}`, { input_message: 'go' });
      expect(res.status).toBe(422);
      expect(res.json).toEqual(WORKFLOW_ERROR);
    },
  );

  it.each(['/generate/stream', '/generate/full'])(
    'legacy %s ends with the error JSON alone on its own line, no data: prefix',
    async (path) => {
      const res = await postStream(`${t.url}${path}`, { input_message: 'go' });
      expect(res.status).toBe(200);
      expect(dataOf(res).map((d) => (d as { value: string }).value)).toEqual(['partial ', 'answer']);
      const last = res.lines[res.lines.length - 1];
      expect(JSON.parse(last)).toEqual(WORKFLOW_ERROR);
      expect(res.text.endsWith(`${last}\n`)).toBe(true);
      expect(res.text).not.toContain('event:');
    },
  );

  it.each(['/v1/workflow/stream', '/v1/workflow/full'])(
    'versioned %s ends with an event: error frame',
    async (path) => {
      const res = await postStream(`${t.url}${path}`, { input_message: 'go' });
      expect(res.status).toBe(200);
      const errors = res.events.filter((e) => e.event === 'error');
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0].data)).toEqual(WORKFLOW_ERROR);
      expect(res.events[res.events.length - 1].event).toBe('error');
      expect(res.text.endsWith('\n\n')).toBe(true);
      expect(linesWith(res, 'intermediate_data').length).toBeGreaterThan(0);
    },
  );
});

describe('requests the server refuses', () => {
  // Bodies, unknown routes and wrong methods: src/workflows/generate.controller.spec.ts (slim app).
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('GET /health answers healthy', async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'healthy' });
  });
});

describe('CORS', () => {
  it('allows no origin by default', async () => {
    const t = await startApp(ECHO_YAML);
    try {
      const res = await fetch(`${t.url}/v1/workflow`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await t.close();
    }
  });

  it('allows the configured origins and regex, and only those', async () => {
    const t = await startApp(
      ECHO_YAML.replace(
        'workflow:',
        () => `general:
  front_end:
    cors:
      allow_origins: ['https://app.example.com']
      allow_origin_regex: '^https://.*\\.corp\\.example$'
      allow_credentials: true
      expose_headers: [X-Trace-Id]
workflow:`,
      ),
    );
    try {
      const ask = (origin: string) =>
        fetch(`${t.url}/v1/workflow`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
      const allowed = await ask('https://app.example.com');
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
      const byRegex = await ask('https://ui.corp.example');
      expect(byRegex.headers.get('access-control-allow-origin')).toBe('https://ui.corp.example');
      const other = await ask('https://evil.example.com');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const post = await fetch(`${t.url}/v1/workflow`, {
        method: 'POST',
        headers: { origin: 'https://app.example.com', 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      });
      expect(post.headers.get('access-control-expose-headers')).toBe('X-Trace-Id');
    } finally {
      await t.close();
    }
  });

  it('never reflects Origin: null and matches allow_origin_regex against the whole origin', async () => {
    const t = await startApp(
      ECHO_YAML.replace(
        'workflow:',
        () => `general:
  front_end:
    cors:
      allow_origins: ['https://app.example.com']
      allow_origin_regex: 'https://[a-z]+\\.example\\.com'
      allow_credentials: true
workflow:`,
      ),
    );
    try {
      const ask = (origin: string) =>
        fetch(`${t.url}/v1/workflow`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      expect((await ask('https://ui.example.com')).headers.get('access-control-allow-origin')).toBe(
        'https://ui.example.com',
      );
      for (const origin of [
        'null',
        'https://app.example.com.evil.test',
        'https://evil.test/https://ui.example.com',
      ]) {
        const res = await ask(origin);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    } finally {
      await t.close();
    }
  });

  it("allow_origins ['*'] without credentials answers *, never the caller's origin", async () => {
    const t = await startApp(
      ECHO_YAML.replace(
        'workflow:',
        () => `general:\n  front_end:\n    cors:\n      allow_origins: ['*']\nworkflow:`,
      ),
    );
    try {
      for (const origin of ['https://anyone.test', 'null']) {
        const res = await fetch(`${t.url}/v1/workflow`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    } finally {
      await t.close();
    }
  });
});

describe('streams and the client', () => {
  it('headers arrive before the workflow produces anything', async () => {
    const t = await startApp(scriptedYaml(`- sleep: { seconds: 10 }\n- stream: { text: late }`));
    try {
      const abort = new AbortController();
      const res = await fetch(`${t.url}/v1/workflow/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input_message: 'x' }),
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      // The workflow sleeps ten seconds before its first output: the headers and the trace frame are here
      // without it. Held back for it, they would have come ten seconds later, with it.
      const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
      expect(first).toContain('observability_trace');
      expect(first).not.toContain('late');
      abort.abort();
    } finally {
      await t.close();
    }
  });

  it('sends a keep-alive comment during silence', async () => {
    const t = await startApp(
      scriptedYaml(
        `- sleep: { seconds: 1.3 }\n- stream: { text: after }`,
        undefined,
        'general:\n  front_end:\n    sse_keepalive_seconds: 1',
      ),
    );
    try {
      const res = await postStream(`${t.url}/generate/stream`, { input_message: 'x' });
      const trace = traceLine(res.headers.get('observability-trace-id')!);
      expect(res.text).toBe(`${trace}\n\n: keep-alive\n\ndata: {"value":"after"}\n\n`);
    } finally {
      await t.close();
    }
  });

  it.each(['/generate/stream', '/generate/full', '/chat/stream', '/v1/chat/completions'])(
    'a client that disconnects from %s aborts the workflow through ctx.signal',
    async (path) => {
      const { registry, runs } = probeRegistry();
      const t = await startApp('workflow:\n  _type: probe\n', registry);
      try {
        const body = path.includes('chat')
          ? { messages: [{ role: 'user', content: 'go' }], stream: true }
          : { input_message: 'go' };
        await new Promise<void>((resolve, reject) => {
          const req = http.request(`${t.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
          });
          req.on('response', (res) => {
            let seen = 0;
            res.on('data', (chunk: Buffer) => {
              seen += (chunk.toString().match(/chunk\d+/g) ?? []).length;
              if (seen >= 3) {
                req.destroy();
                resolve();
              }
            });
          });
          req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
          req.end(JSON.stringify(body));
        });
        const run = await eventually(() => {
          expect(runs).toHaveLength(1);
          expect(runs[0].ended).toBe('aborted');
          return runs[0];
        });
        expect(run.ctx.signal.aborted).toBe(true);
        expect(run.chunks).toBeLessThan(100);
        expect(String((run.abortReason as Error).message)).toMatch(/client disconnected/);
      } finally {
        await t.close();
      }
    },
  );
});

describe('streaming routes take smaller bodies (max_stream_body_bytes)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  const big = { input_message: 'x'.repeat(1_500_000) };

  // The stream routes' own 413s: generate.controller.spec.ts and chat.controller.spec.ts.
  it('a streamed chat completion is held to it too, and the same body is fine on /v1/workflow', async () => {
    const res = await postJson(`${t.url}/v1/chat/completions`, {
      stream: true,
      messages: [{ role: 'user', content: big.input_message }],
    });
    expect(res.status).toBe(413);
    expect((res.json as { error: { message: string } }).error.message).toMatch(/max_stream_body_bytes/);
    const plain = await postJson(`${t.url}/v1/workflow`, { message: big.input_message });
    expect(plain.status).toBe(200);
  });
});
