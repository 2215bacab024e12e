import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Identity } from '../core/identity/identity';
import type { ObservabilityTrace } from '../core/tracing/observability-trace';
import type { RequestMetadata } from '../runtime/workflow-context';

/** Who sent one HTTP request of a session and what it carried, handed to the tool handlers. */
export interface CallContext {
  identity: Identity;
  request: RequestMetadata;
  trace: ObservabilityTrace;
}

/**
 * The SDK hands `req.auth` to each request handler as `extra.authInfo`: the one per-request channel from
 * the HTTP request to the handler, so the identity resolved for this request rides in it.
 */
export function authInfoOf(context: CallContext): AuthInfo {
  return { token: '', clientId: context.identity.userId ?? 'anonymous', scopes: [], extra: { context } };
}

export function contextOf(authInfo: AuthInfo | undefined): CallContext {
  const context = authInfo?.extra?.context as CallContext | undefined;
  if (!context) throw new Error('An MCP request reached a tool without the HTTP request it came in');
  return context;
}
