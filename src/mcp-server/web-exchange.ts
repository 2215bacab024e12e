import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Request, Response } from 'express';

/**
 * One HTTP request of a session, handed to the SDK's web-standard transport and its answer (JSON or
 * an SSE stream) written back: the body is the one Express already parsed, and a client that goes
 * away cancels the stream, as the SDK's Node transport does.
 */
export async function exchange(
  transport: WebStandardStreamableHTTPServerTransport,
  req: Request,
  res: Response,
  authInfo: AuthInfo,
  parsedBody: unknown,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`);
  const answer = await transport.handleRequest(new Request(url, { method: req.method, headers }), {
    authInfo,
    parsedBody,
  });
  res.status(answer.status);
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  if (!answer.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = answer.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away: the stream was cancelled above.
  } finally {
    res.end();
  }
}

/** The `initialize` a session was opened with, replayed on a fresh transport (another replica's session). */
export async function replayInitialize(
  transport: WebStandardStreamableHTTPServerTransport,
  initialize: unknown,
): Promise<boolean> {
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  const answer = await transport.handleRequest(request, { parsedBody: initialize });
  // Read to its end: the stream closes once the server has answered (client capabilities recorded).
  await answer.text();
  return answer.ok;
}
