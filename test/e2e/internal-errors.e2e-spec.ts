import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { RecordingAgent, types } from '../utils/agui-client';
import { captureErrorLog, INTERNAL_ERROR, traceIn } from '../utils/internal-errors';
import { jobsAt } from '../utils/jobs-client';
import { postJson, postStream } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

/** A port nothing listens on: the model endpoint of the example, refused at connect. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What no caller may read: the endpoint, its address, the system error, a path on this machine. */
const INTERNALS = /127\.0\.0\.1|ECONNREFUSED|could not be reached|\/v1"|\/work\/|node_modules/;

describe('an internal error reaches callers of every face as a stable message and a trace id', () => {
  let t: TestApp;
  let endpoint: string;
  let log: ReturnType<typeof captureErrorLog>;
  beforeAll(async () => {
    endpoint = `http://127.0.0.1:${await closedPort()}/v1`;
    t = await startApp(`
llms:
  mock: { _type: openai, base_url: '${endpoint}', model_name: m, api_key: k, max_retries: 0 }
workflow: { _type: tool_calling_agent, llm_name: mock }
`);
  });
  afterAll(() => t.close());
  beforeEach(() => (log = captureErrorLog()));
  afterEach(() => log.restore());

  /** The message a face showed: the stable one; the log line of its trace has the detail. */
  function expectStable(shown: unknown, raw: string): void {
    expect(String(shown)).toMatch(INTERNAL_ERROR);
    expect(raw).not.toMatch(INTERNALS);
    expect(log.lineFor(traceIn(shown))).toContain(
      `LLM "mock" (model "m" at ${endpoint}) could not be reached`,
    );
  }

  it('the workflow API: 422 {code, message, details}', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 'workflow_error', details: 'LLMError' });
    expectStable(res.json.message, res.text);
  });

  it('the OpenAI-compatible API: the error the SDK raises', async () => {
    const sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const err = (await sdk.chat.completions
      .create({ model: 'a', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(422);
    const body = err.error as { message: string };
    expectStable(body.message, JSON.stringify(err.error));
  });

  it('the SSE stream: its event: error frame', async () => {
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'hi' });
    const frame = res.events.find((e) => e.event === 'error');
    expect(frame).toBeDefined();
    expectStable((JSON.parse(frame!.data) as { message: string }).message, res.text);
  });

  it('the WebSocket: error_message (NAT puts the text in details)', async () => {
    const ws = await WsClient.connect(t.url);
    try {
      ws.socket.send(JSON.stringify(userMessage('hi', { id: 'u1' })));
      const run = await ws.run();
      const error = run.find((m) => m.type === 'error_message') as unknown as {
        content: { details: string };
      };
      expect(error.content).toMatchObject({ code: 'workflow_error', message: 'LLMError' });
      expectStable(error.content.details, JSON.stringify(run));
    } finally {
      ws.close();
    }
  });

  it('AG-UI: RUN_ERROR', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('hi');
    const events = await agent.run().catch(() => agent.events);
    expect(types(events).at(-1)).toBe('RUN_ERROR');
    expectStable(events.at(-1)!.message, JSON.stringify(events));
  });

  it("an async job: its status's error", async () => {
    const jobs = jobsAt(t.url);
    const jobId = `fails-${randomUUID()}`;
    expect((await jobs.submit({ input_message: 'hi', job_id: jobId })).status).toBe(202);
    const done = await jobs.until(jobId, 'failure');
    expectStable(done.error, JSON.stringify(done));
  });
});

describe("a workflow's own failure is still shown as it is", () => {
  it('a scripted fail step keeps its message and type', async () => {
    const t = await startApp(`
workflow:
  _type: scripted
  steps:
    - fail: { message: 'the printer caught fire', error_type: PrinterError }
`);
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
      expect(res.json).toEqual({
        code: 'workflow_error',
        message: 'the printer caught fire',
        details: 'PrinterError',
      });
    } finally {
      await t.close();
    }
  });
});
