import { AsyncLocalStorage } from 'node:async_hooks';
import type { WorkflowContext } from '../workflow-context';

/**
 * The run an MCP request is made for: the SDK's transport calls our `fetch` deep inside a call, so the
 * run whose user authorizes travels with the call (`asCaller`) instead of through the SDK.
 */
const caller = new AsyncLocalStorage<WorkflowContext>();

/** Runs `fn` (an MCP call, a tool listing) on behalf of `ctx`'s user. */
export function asCaller<T>(ctx: WorkflowContext | undefined, fn: () => Promise<T>): Promise<T> {
  return ctx ? caller.run(ctx, fn) : fn();
}

/** An `mcp_oauth2` server refused a request made for no user (start-up's tool listing): nobody to ask. */
export class McpAuthorizationRequired extends Error {
  constructor(provider: string) {
    super(
      `the server requires a user's authorization (auth_provider ${provider}): its tools are listed at the first call of a user who authorizes`,
    );
    this.name = 'McpAuthorizationRequired';
  }
}

/** Whether `err` (or what it wraps) is a refusal or failure of the user's authorization: never retried. */
export function isAuthorizationFailure(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (
      e instanceof McpAuthorizationRequired ||
      e.name === 'OAuthFlowError' ||
      e.name === 'NotInteractiveError'
    )
      return true;
    if ((e as { extra?: { errorType?: unknown } }).extra?.errorType === 'NotInteractiveError') return true;
  }
  return false;
}

/**
 * The `fetch` of one user's session with a server behind an `mcp_oauth2` provider. Each request carries
 * the user's bearer token, got through `ctx.authenticate` (a held token, a refresh, or the user's
 * consent: the `oauth_required` flow every face knows); a 401 hands the refused token back, which is
 * refreshed or asked for again, and the request is sent once more. Concurrent requests share one ask.
 */
export function oauthBearerFetch(base: typeof fetch, provider: string): typeof fetch {
  let bearer: string | undefined;
  let asking: Promise<string> | undefined;
  const ask = (ctx: WorkflowContext, refused?: string): Promise<string> => {
    asking ??= ctx
      .authenticate(provider, { refused, journal: false })
      .then((granted) => (bearer = granted.headers.Authorization.replace(/^Bearer\s+/i, '')))
      .finally(() => (asking = undefined));
    return asking;
  };
  return async (input, init = {}) => {
    const send = (token: string | undefined) => {
      const headers = new Headers(init.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return base(input, { ...init, headers });
    };
    const ctx = caller.getStore();
    const first = bearer ?? (ctx ? await ask(ctx) : undefined);
    const answer = await send(first);
    if (answer.status !== 401) return answer;
    await answer.arrayBuffer().catch(() => undefined);
    if (!ctx) throw new McpAuthorizationRequired(provider);
    // Another request may have replaced the token meanwhile: that one is tried before asking.
    const next = bearer !== undefined && bearer !== first ? bearer : await ask(ctx, first);
    return send(next);
  };
}
