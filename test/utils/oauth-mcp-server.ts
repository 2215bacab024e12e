import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import type { AuthServer } from './oidc-server';

/** The scope the server's tools need; its protected resource metadata lists it. */
export const MCP_SCOPE = 'mcp:tools';

/**
 * An MCP server protected as the MCP authorization spec says, made with the SDK: its protected resource
 * metadata (RFC 9728) names the authorization server, every request needs a live access token of that
 * server with `mcp:tools` (the SDK's bearer middleware; 401 with `resource_metadata` otherwise), and its
 * `whoami` tool answers with the token's subject.
 */
export class OAuthMcpServer {
  /** Tool calls, with the subject and client of the token each came with. */
  readonly calls: { tool: string; sub: string; client_id: string }[] = [];
  /** Requests answered 401 (missing, unknown, expired or revoked token). */
  refused = 0;
  /** Tokens refused from now on, as if revoked. */
  readonly revoked = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /**
   * `metadataPath`: the protected resource metadata is served only there, without its scopes, and only
   * the 401's `WWW-Authenticate` (`resource_metadata`, `scope`) says so: no well-known location has it.
   */
  static async start(auth: AuthServer, options: { metadataPath?: string } = {}): Promise<OAuthMcpServer> {
    const discovery = await fetch(`${auth.issuer}/.well-known/openid-configuration`);
    const oauthMetadata = (await discovery.json()) as OAuthMetadata;
    const app = express();
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const self = new OAuthMcpServer(server, url);
    const { metadataPath } = options;
    if (metadataPath)
      app.get(metadataPath, (_req, res) => {
        res.json({ resource: url, authorization_servers: [oauthMetadata.issuer] });
      });
    else
      app.use(
        mcpAuthMetadataRouter({
          oauthMetadata,
          resourceServerUrl: new URL(url),
          scopesSupported: [MCP_SCOPE],
        }),
      );
    const bearer = requireBearerAuth({
      requiredScopes: [MCP_SCOPE],
      resourceMetadataUrl: metadataPath
        ? new URL(metadataPath, url).href
        : getOAuthProtectedResourceMetadataUrl(new URL(url)),
      verifier: {
        verifyAccessToken: async (token) => {
          const found = self.revoked.has(token) ? undefined : await auth.accessToken(token);
          if (!found) {
            const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
            throw new InvalidTokenError('unknown or expired token');
          }
          return {
            token,
            clientId: found.client_id,
            scopes: found.scope.split(' ').filter(Boolean),
            expiresAt: found.expiresAt,
            extra: { sub: found.sub },
          };
        },
      },
    });
    app.post(
      '/mcp',
      (req, res, next) => {
        res.on('finish', () => {
          if (res.statusCode === 401) self.refused++;
        });
        next();
      },
      bearer,
      express.json(),
      async (req, res) => {
        const mcp = self.mcpServer();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        res.on('close', () => void transport.close().then(() => mcp.close()));
        await mcp.connect(transport);
        await transport.handleRequest(req, res, req.body);
      },
    );
    return self;
  }

  private mcpServer(): McpServer {
    const mcp = new McpServer({ name: 'test-oauth', version: '1.0.0' });
    mcp.registerTool(
      'whoami',
      { description: 'Who the caller is', inputSchema: { greeting: z.string() } },
      ({ greeting }, extra) => {
        const sub = String(extra.authInfo?.extra?.sub ?? '');
        this.calls.push({ tool: 'whoami', sub, client_id: extra.authInfo?.clientId ?? '' });
        return { content: [{ type: 'text', text: `${greeting}, ${sub}` }] };
      },
    );
    return mcp;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
