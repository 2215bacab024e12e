import type { SseWriter } from '../core/http/sse-writer';

/** How a failure ends a stream that already answered 200. */
export type StreamErrorStyle =
  /** NAT's legacy routes: the error JSON alone on its own line, no `data:` (its UI shows exactly that). */
  | 'bare'
  /** Versioned routes: an `event: error` frame. */
  | 'event';

export function writeStreamError(
  writer: SseWriter,
  style: StreamErrorStyle,
  message: string,
  type: string,
): void {
  const body = { code: 'workflow_error', message, details: type };
  if (style === 'bare') writer.raw(JSON.stringify(body));
  else writer.event('error', body);
}
