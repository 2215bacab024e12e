import { Logger } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { OutboundPolicy } from '../../core/outbound/outbound-policy';
import { redactUrl, redactUrlsIn } from '../../core/outbound/redact-url';
import type { McpClientConfig } from './mcp-client.config';
import { inCallScope, scopedFetch } from './mcp-call-scope';
import { isAuthorizationFailure } from './mcp-oauth-bearer';
import { listPage, listServerTools, type ListedTool } from './mcp-tool-listing';
import { policyFetch, RequestNotSent } from './policy-fetch';

/** What a session's requests carry for its `server.auth_provider`: the transport's `fetch`, wrapped. */
export type FetchAuth = (base: typeof fetch) => typeof fetch;

export interface CallResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/** What a stdio server wrote to stderr last, for the server log when a request to it fails. */
const STDERR_TAIL = 2000;

/**
 * A tool's `outputSchema` is the server's (untrusted) and its `structuredContent` is never read: the
 * SDK's default would compile each one with ajv and run it on every result, on the main thread.
 */
const UNCHECKED: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** A client and the requests in flight on it: one replaced by a reconnect closes when they are done. */
interface Session {
  client: Client;
  inFlight: number;
  retired: boolean;
}

/**
 * One session with an MCP server through the SDK's client. Every request has `tool_call_timeout` and
 * closes its own HTTP stream when it ends. NAT's reconnect settings (`reconnect_enabled`,
 * `reconnect_max_attempts`, backing off from `reconnect_initial_backoff` to `reconnect_max_backoff`
 * seconds) apply only where a request surely did not reach the server (see `notSent`): unlike NAT,
 * a request that may have run is never sent again, and a reconnect leaves other requests in flight
 * on the old session to finish.
 */
export class McpConnection {
  /** NAT's `server_name`: `streamable-http:<url>`, `sse:<url>` or `stdio:<command>` (URLs redacted). */
  readonly serverName: string;
  private session?: Session;
  private connecting?: Promise<Session>;
  private readonly live = new Set<Session>();
  private stderrTail = '';
  private closed = false;
  private readonly logger = new Logger('McpClient');

  constructor(
    private readonly config: McpClientConfig,
    private readonly outbound: OutboundPolicy,
    private readonly auth?: FetchAuth,
    /** Seconds a request may take when it may wait for a user's consent (`auth_flow_timeout`). */
    private readonly authTimeout?: number,
  ) {
    const { server } = config;
    this.serverName =
      server.transport === 'stdio'
        ? `stdio:${server.command}`
        : `${server.transport}:${redactUrl(server.url!)}`;
  }

  get healthy(): boolean {
    return this.session !== undefined;
  }

  private get timeoutMs(): number {
    return Math.max(this.config.tool_call_timeout, this.authTimeout ?? 0) * 1000;
  }

  /** Connects once; concurrent callers share the attempt. */
  async connect(): Promise<Client> {
    return (await this.current()).client;
  }

  listTools(): Promise<ListedTool[]> {
    return this.withReconnect((client) =>
      listServerTools((cursor) => inCallScope(undefined, () => listPage(client, cursor, this.timeoutMs))),
    );
  }

  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallResult> {
    return this.withReconnect(
      (client) =>
        inCallScope(
          signal,
          async (cancel) =>
            (await client.callTool({ name, arguments: args }, undefined, {
              timeout: this.timeoutMs,
              signal: cancel,
            })) as CallResult,
        ),
      signal,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.session = undefined;
    await Promise.all([...this.live].map((s) => this.end(s)));
  }

  /** `op` once; again on a new session only if the server surely never saw it (NAT retries any error). */
  private async withReconnect<T>(op: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let session = await this.current().catch((err) => Promise.reject(this.explain(err)));
    try {
      return await this.use(session, op);
    } catch (err) {
      const attempts = this.config.reconnect_enabled ? this.config.reconnect_max_attempts : 0;
      if (attempts === 0 || signal?.aborted || this.closed || isAuthorizationFailure(err) || !notSent(err))
        throw this.explain(err);
      this.retire(session);
    }
    session = await this.reconnect(signal);
    try {
      return await this.use(session, op);
    } catch (err) {
      throw this.explain(err);
    }
  }

  private async use<T>(session: Session, op: (client: Client) => Promise<T>): Promise<T> {
    session.inFlight++;
    try {
      return await op(session.client);
    } finally {
      session.inFlight--;
      if (session.retired && session.inFlight === 0) void this.end(session);
    }
  }

  private current(): Promise<Session> {
    if (this.session) return Promise.resolve(this.session);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async reconnect(signal?: AbortSignal): Promise<Session> {
    let backoff = this.config.reconnect_initial_backoff;
    let last: unknown;
    for (let attempt = 0; attempt < this.config.reconnect_max_attempts; attempt++) {
      try {
        return await this.current();
      } catch (err) {
        last = err;
        if (signal?.aborted || this.closed) break;
        await new Promise((r) => setTimeout(r, Math.min(backoff, this.config.reconnect_max_backoff) * 1000));
        backoff = Math.min(backoff * 2, this.config.reconnect_max_backoff);
      }
    }
    throw this.explain(last);
  }

  /** New requests go to a new session; the requests in flight on this one finish first. */
  private retire(session: Session): void {
    if (this.session === session) this.session = undefined;
    session.retired = true;
    if (session.inFlight === 0) void this.end(session);
  }

  private async end(session: Session): Promise<void> {
    this.live.delete(session);
    await session.client.close().catch(() => undefined);
  }

  private async open(): Promise<Session> {
    // The SDK is loaded by the first config that has an MCP client.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { Client } =
      require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const client = new Client({ name: 'interlude', version: '1.0.0' }, { jsonSchemaValidator: UNCHECKED });
    // What the transport reports besides a request's own failure (a stream that broke, a stray message).
    client.onerror = () => undefined;
    const transport = this.transport();
    try {
      await client.connect(transport, { timeout: this.timeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new Error('the MCP client is closed');
    }
    const session: Session = { client, inFlight: 0, retired: false };
    client.onclose = () => {
      if (this.session === session) this.session = undefined;
      this.live.delete(session);
    };
    this.session = session;
    this.live.add(session);
    return session;
  }

  private transport(): Transport {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { server } = this.config;
    if (server.transport === 'stdio') {
      const { StdioClientTransport } =
        require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js');
      // The SDK passes only a few safe variables (PATH, HOME…) plus `env`: the server never sees our secrets.
      const transport = new StdioClientTransport({
        command: server.command!,
        args: server.args ?? [],
        env: server.env,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    const base = this.auth ? this.auth(policyFetch(this.outbound)) : policyFetch(this.outbound);
    const fetch = scopedFetch(base);
    const url = new URL(server.url!);
    const headers = server.custom_headers ?? {};
    if (server.transport === 'sse') {
      const { SSEClientTransport } =
        require('@modelcontextprotocol/sdk/client/sse.js') as typeof import('@modelcontextprotocol/sdk/client/sse.js');
      return new SSEClientTransport(url, { fetch, requestInit: { headers } });
    }
    const { StreamableHTTPClientTransport } =
      require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    /* eslint-enable @typescript-eslint/no-require-imports */
    return new StreamableHTTPClientTransport(url, {
      fetch,
      requestInit: { headers },
      // The session's own GET stream retries a couple of times, never for ever.
      reconnectionOptions: {
        maxRetries: 2,
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 5000,
        reconnectionDelayGrowFactor: 2,
      },
    });
  }

  /**
   * An error safe to show a model or a log: URLs redacted, bounded. A stdio server's last words (its
   * stderr) go to the server log only: they are the server's, not meant for the model.
   */
  private explain(err: unknown): Error {
    const message = redactUrlsIn(err instanceof Error ? err.message : String(err)).slice(0, 1000);
    const stderr = this.stderrTail.trim();
    if (stderr)
      this.logger.warn(`${this.serverName}: ${message} (its stderr ended with: ${stderr.slice(-500)})`);
    return new Error(`${this.serverName}: ${message}`, { cause: err });
  }
}

/**
 * Whether a failed request surely never reached the server, so sending it again cannot run a tool
 * twice: the connection was refused (nothing was written), the client had no session left, or the
 * server refused it before handling it: 404, which the MCP spec reserves for a session it no longer
 * knows (one restarted), or 401, a credential it no longer takes (a new session asks for a new one).
 */
function notSent(err: unknown): boolean {
  if (err instanceof RequestNotSent) return true;
  if (!(err instanceof Error)) return false;
  if (err.message === 'Not connected') return true;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { StreamableHTTPError } =
    require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (err instanceof StreamableHTTPError && (err.code === 404 || err.code === 401)) return true;
  // The SSE transport's POST.
  return /^Error POSTing to endpoint \(HTTP 40[14]\)/.test(err.message);
}
