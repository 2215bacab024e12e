import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OutboundPolicy } from '../../core/outbound/outbound-policy';
import { redactUrl, redactUrlsIn } from '../../core/outbound/redact-url';
import type { McpClientConfig } from './mcp-client.config';
import { isAuthorizationFailure } from './mcp-oauth-bearer';
import { policyFetch } from './policy-fetch';

/** What a session's requests carry for its `server.auth_provider`: the transport's `fetch`, wrapped. */
export type FetchAuth = (base: typeof fetch) => typeof fetch;

/** A tool as the server lists it (name, description and input schema, not yet bounded). */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface CallResult {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

/** Pages of `tools/list` read before giving up on a server that keeps answering with a cursor. */
const MAX_PAGES = 20;
/** What a stdio server wrote to stderr last, kept to explain a failed start. */
const STDERR_TAIL = 2000;

/**
 * One session with an MCP server through the SDK's client, with NAT's reconnect rules: a failed call
 * reconnects (up to `reconnect_max_attempts`, backing off from `reconnect_initial_backoff` to
 * `reconnect_max_backoff` seconds) and is tried once more. Every request has `tool_call_timeout`.
 */
export class McpConnection {
  /** NAT's `server_name`: `streamable-http:<url>`, `sse:<url>` or `stdio:<command>` (URLs redacted). */
  readonly serverName: string;
  private client?: Client;
  private connecting?: Promise<Client>;
  private stderrTail = '';
  private closed = false;

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
    return this.client !== undefined;
  }

  private get timeoutMs(): number {
    return Math.max(this.config.tool_call_timeout, this.authTimeout ?? 0) * 1000;
  }

  /** Connects once; concurrent callers share the attempt. */
  connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  async listTools(): Promise<ListedTool[]> {
    return this.withReconnect(async (client) => {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
        tools.push(...(answer.tools as ListedTool[]));
        cursor = answer.nextCursor;
        if (!cursor) break;
      }
      return tools;
    });
  }

  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallResult> {
    return this.withReconnect(
      async (client) =>
        (await client.callTool({ name, arguments: args }, undefined, {
          timeout: this.timeoutMs,
          signal,
        })) as CallResult,
      signal,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async withReconnect<T>(op: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await op(await this.connect());
    } catch (err) {
      const attempts = this.config.reconnect_enabled ? this.config.reconnect_max_attempts : 0;
      if (attempts === 0 || signal?.aborted || this.closed || isAuthorizationFailure(err))
        throw this.explain(err);
    }
    await this.reconnect(signal);
    try {
      return await op(await this.connect());
    } catch (err) {
      throw this.explain(err);
    }
  }

  private async reconnect(signal?: AbortSignal): Promise<void> {
    await this.drop();
    let backoff = this.config.reconnect_initial_backoff;
    let last: unknown;
    for (let attempt = 0; attempt < this.config.reconnect_max_attempts; attempt++) {
      try {
        await this.connect();
        return;
      } catch (err) {
        last = err;
        if (signal?.aborted || this.closed) break;
        await new Promise((r) => setTimeout(r, Math.min(backoff, this.config.reconnect_max_backoff) * 1000));
        backoff = Math.min(backoff * 2, this.config.reconnect_max_backoff);
      }
    }
    throw this.explain(last);
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async open(): Promise<Client> {
    // The SDK is loaded by the first config that has an MCP client.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { Client } =
      require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const client = new Client({ name: 'interlude', version: '1.0.0' });
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
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    this.client = client;
    return client;
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
    const fetch = this.auth ? this.auth(policyFetch(this.outbound)) : policyFetch(this.outbound);
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

  /** An error safe to show a model or a log: URLs redacted, bounded, a stdio server's last words. */
  private explain(err: unknown): Error {
    const message = redactUrlsIn(err instanceof Error ? err.message : String(err)).slice(0, 1000);
    const stderr = this.stderrTail.trim()
      ? ` (its stderr ended with: ${this.stderrTail.trim().slice(-500)})`
      : '';
    return new Error(`${this.serverName}: ${message}${stderr}`, { cause: err });
  }
}
