import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface StreamResult {
  status: number;
  headers: Headers;
  /** The body as sent, byte for byte. */
  text: string;
  /** Non-empty lines of the body. */
  lines: string[];
  /** Standard SSE events, as a spec-following parser (eventsource-parser) reads them. */
  events: EventSourceMessage[];
}

/** POSTs JSON and reads a whole streamed response. */
export async function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  parser.feed(text);
  return {
    status: res.status,
    headers: res.headers,
    text,
    lines: text.split('\n').filter((l) => l !== ''),
    events,
  };
}

/** The line every NAT-face stream starts with (NAT's `observability_trace`), naming the trace id. */
export function traceLine(traceId: string): string {
  return `observability_trace: ${JSON.stringify({ observability_trace_id: traceId })}`;
}

/** The stream's lines after its opening `observability_trace:` line (which must be there). */
export function afterTrace(result: StreamResult): string[] {
  const traceId = result.headers.get('observability-trace-id');
  expect(traceId).toBeTruthy();
  expect(result.lines[0]).toBe(traceLine(traceId!));
  return result.lines.slice(1);
}

/** The JSON of every line that starts with `prefix: `. */
export function linesWith(result: StreamResult, prefix: string): unknown[] {
  return result.lines
    .filter((l) => l.startsWith(`${prefix}: `))
    .map((l) => JSON.parse(l.slice(prefix.length + 2)) as unknown);
}

/** The parsed `data:` payloads (excluding `[DONE]`). */
export function dataOf(result: StreamResult): unknown[] {
  return result.events
    .filter((e) => e.event === undefined && e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as unknown);
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as Record<string, unknown> };
}
