/**
 * The model's boundary in tests: an OpenAI-compatible `/v1/chat/completions` (and `/v1/responses`) server (node:http on an
 * ephemeral port) that answers each request with the next reply of a per-test script, streamed as SSE
 * chunks or whole as the request asks, and records every request so a test can check what the model
 * was sent.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { responseBody } from './fake-responses';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface FakeToolCall {
  name: string;
  arguments: unknown;
  id?: string;
}

export type Reply =
  | { kind: 'text'; text: string; usage: Usage }
  | { kind: 'tools'; calls: FakeToolCall[]; text: string; usage: Usage }
  | { kind: 'error'; status: number; body: unknown; headers: Record<string, string> }
  /** Never answers (until the server closes): for time-outs. */
  | { kind: 'hang' }
  /** Exactly these bytes, as a misbehaving endpoint (or one in an attacker's hands) sends them. */
  | { kind: 'raw'; status: number; headers: Record<string, string>; body: string | Buffer };

const DEFAULT_USAGE: Usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

export const reply = {
  text: (text: string, usage: Usage = DEFAULT_USAGE): Reply => ({ kind: 'text', text, usage }),
  /** Tool calls (and optional text before them); arguments are sent as JSON text. */
  tools: (calls: FakeToolCall[], text = '', usage: Usage = DEFAULT_USAGE): Reply => ({
    kind: 'tools',
    calls,
    text,
    usage,
  }),
  /** An error in OpenAI's shape; `retry-after-ms` keeps the SDK's backoff short. */
  error: (
    status: number,
    message: string,
    extra: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
  ): Reply => ({
    kind: 'error',
    status,
    body: {
      error: { message, type: extra.type ?? 'invalid_request_error', param: null, code: extra.code ?? null },
    },
    headers: { 'retry-after-ms': '10', ...extra.headers },
  }),
  hang: (): Reply => ({ kind: 'hang' }),
  raw: (status: number, body: string | Buffer, headers: Record<string, string> = {}): Reply => ({
    kind: 'raw',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  }),
  /** A stream of these chunks (each sent as one `data:` line, as JSON unless a string), then [DONE]. */
  chunks: (chunks: unknown[]): Reply =>
    reply.raw(
      200,
      [
        ...chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`),
        'data: [DONE]\n\n',
      ].join(''),
      { 'content-type': 'text/event-stream' },
    ),
};

export interface ModelRequest {
  headers: IncomingHttpHeaders;
  /** `/v1/chat/completions`, or `/v1/responses` (its body has `input`, not `messages`). */
  path: string;
  body: {
    model: string;
    messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description: string; parameters: unknown } }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    stop?: string[];
    [key: string]: unknown;
  };
}

/** Pieces of text the way a model streams them: each word with the space before it. */
export function tokens(text: string): string[] {
  return text.match(/\s*\S+\s*$|\s*\S+/g) ?? [];
}

export class FakeLlm {
  /** Every request received, in order. */
  readonly requests: ModelRequest[] = [];
  /** Requests left hanging that the client gave up on (closed the connection). */
  dropped = 0;
  private readonly replies: Reply[] = [];
  private responder?: (request: ModelRequest) => Reply;
  private count = 0;

  private constructor(
    private readonly server: Server,
    /** The OpenAI base URL (`http://127.0.0.1:<port>/v1`). */
    readonly url: string,
  ) {}

  static async start(): Promise<FakeLlm> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const llm = new FakeLlm(server, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (raw += c));
      req.on('end', () => llm.answer(req.url ?? '', req.headers, raw, res));
    });
    return llm;
  }

  /** Queues replies, answered in order; a request with none left gets a 500 that says so. */
  script(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  /**
   * Answers every request with `responder(request)` instead of the queue: for many runs at once,
   * where the order of requests says nothing about which run sent them.
   */
  respondWith(responder: (request: ModelRequest) => Reply): void {
    this.responder = responder;
  }

  /** Forgets the requests and the replies left (between tests). */
  reset(): void {
    this.requests.length = 0;
    this.replies.length = 0;
    this.responder = undefined;
    this.dropped = 0;
  }

  /** The replies not used yet (a test that leaves some did not run as scripted). */
  get pending(): number {
    return this.replies.length;
  }

  /** The last message of the n-th request (0-based). */
  lastMessage(n: number): ModelRequest['body']['messages'][number] {
    return this.requests[n].body.messages.at(-1)!;
  }

  /** The content of the last user message of the n-th request (0-based): text, or its parts. */
  userContent(n = 0): unknown {
    return this.requests[n].body.messages.filter((m: { role: string }) => m.role === 'user').at(-1)?.content;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(path: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse) {
    const json = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...extra });
      res.end(JSON.stringify(body));
    };
    if (path !== '/v1/chat/completions' && path !== '/v1/responses')
      return json(404, { error: { message: `no route ${path}` } });
    const body = JSON.parse(raw) as ModelRequest['body'];
    const request = { headers, path, body };
    this.requests.push(request);
    const next = this.responder ? this.responder(request) : this.replies.shift();
    if (!next)
      return json(500, { error: { message: 'fake LLM: no scripted reply left', type: 'server_error' } });
    if (next.kind === 'hang') {
      res.on('close', () => this.dropped++);
      return;
    }
    if (next.kind === 'error') return json(next.status, next.body, next.headers);
    if (next.kind === 'raw') {
      res.writeHead(next.status, next.headers);
      return res.end(next.body);
    }
    if (path === '/v1/responses') {
      // Only whole answers: a streamed Responses request is refused rather than answered wrongly.
      if (body.stream)
        return json(400, { error: { message: 'fake LLM: streamed responses are not scripted' } });
      return json(200, responseBody(next, body, ++this.count));
    }
    const id = `chatcmpl-fake-${++this.count}`;
    const calls = next.kind === 'tools' ? next.calls : [];
    const toolCalls = calls.map((c, i) => ({
      id: c.id ?? `call_${this.count}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    const finish = calls.length ? 'tool_calls' : 'stop';
    const base = { id, created: Math.floor(Date.now() / 1000), model: body.model };
    if (!body.stream) {
      const message = {
        role: 'assistant',
        content: next.text || null,
        ...(calls.length ? { tool_calls: toolCalls } : {}),
      };
      return json(200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: next.usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`,
      );
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    for (const piece of tokens(next.text))
      send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
    toolCalls.forEach((call, index) => {
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      const head = {
        index,
        id: call.id,
        type: 'function',
        function: { name: call.function.name, arguments: '' },
      };
      send([{ index: 0, delta: { tool_calls: [head] }, finish_reason: null }]);
      for (const part of [args.slice(0, half), args.slice(half)]) {
        send([
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: part } }] },
            finish_reason: null,
          },
        ]);
      }
    });
    send([{ index: 0, delta: {}, finish_reason: finish }]);
    if (body.stream_options?.include_usage) send([], { usage: next.usage });
    res.end('data: [DONE]\n\n');
  }
}
