import { Logger } from '@nestjs/common';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { parseEventId, STANDALONE_STREAM, type RedisEventStore } from './redis-event-store';

/** How long one read waits for the stream's next message; a keep-alive comment goes out after each. */
const BLOCK_MS = 15_000;
/** Streams one session may have resumed at once on this replica (each holds a Redis connection). */
const MAX_PER_SESSION = 4;
const logger = new Logger('McpStreamResume');
const resuming = new Map<string, number>();

/** A JSON-RPC response (`result` or `error`): the call's answer, the last message of its stream. */
const isResponse = (m: JSONRPCMessage) => 'id' in m && ('result' in m || 'error' in m);

/**
 * The stream of a call, resumed with `Last-Event-ID` on whichever replica the request reached (the
 * call may run on another one): the `Last-Event-ID` names the stream; what was stored after it, then
 * each message stored later, goes out until the call's answer (or the client leaves, or the stream
 * expires). The session's standalone stream is left to the SDK (false): it has no answer to end it.
 */
export function resumesCall(req: Request, store: RedisEventStore | undefined): store is RedisEventStore {
  const lastEventId = req.headers['last-event-id'];
  if (req.method !== 'GET' || !store || typeof lastEventId !== 'string') return false;
  return parseEventId(lastEventId)?.streamId !== STANDALONE_STREAM;
}

export async function resumeCall(store: RedisEventStore, req: Request, res: Response): Promise<void> {
  const { redis, sessionId } = store;
  const refuse = (status: number, message: string) =>
    void res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  if (!req.headers.accept?.includes('text/event-stream')) {
    return refuse(406, 'Not Acceptable: Client must accept text/event-stream');
  }
  const lastEventId = String(req.headers['last-event-id']);
  // Only this session's own events are found: another session's id is as unknown as a forged one.
  const streamId = await store.getStreamIdForEventId(lastEventId);
  if (!streamId) return refuse(400, 'Invalid event ID');
  const count = resuming.get(sessionId) ?? 0;
  if (count >= MAX_PER_SESSION) return refuse(409, 'Conflict: too many resumed streams in this session');
  resuming.set(sessionId, count + 1);
  res.status(200);
  res.setHeader('content-type', 'text/event-stream');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('x-accel-buffering', 'no');
  res.setHeader('mcp-session-id', sessionId);
  res.flushHeaders();
  const connection = redis.connection('mcp-resume');
  let left = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    redis.release(connection);
    const remaining = (resuming.get(sessionId) ?? 1) - 1;
    if (remaining > 0) resuming.set(sessionId, remaining);
    else resuming.delete(sessionId);
  };
  res.once('close', () => {
    left = true;
    release();
  });
  let entry = parseEventId(lastEventId)!.entry;
  try {
    while (!left) {
      const batch = await store.next(connection, streamId, entry, BLOCK_MS);
      if (batch === 'gone') break;
      if (batch === null) {
        res.write(': keepalive\n\n');
        continue;
      }
      entry = batch.last;
      for (const [eventId, message] of batch.messages) {
        res.write(`event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`);
        if (isResponse(message)) return;
      }
    }
  } catch (err) {
    // The client left (its connection released under the read), or Redis is closing or gone.
    if (!left) logger.warn(`resuming MCP stream ${streamId} stopped: ${(err as Error).message}`);
  } finally {
    release();
    res.end();
  }
}
