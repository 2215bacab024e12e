import type { ExecutionEvent, ExecutionEventBody } from '../../runtime/execution-event';
import { signatureDigest } from './logged-tail';

/**
 * How an event is kept in a Redis Stream entry (`e`: JSON, its seq the entry id). Besides an event
 * as it is, an entry may hold:
 * - a merged text run: `{kind: 'output', value, from, lengths}`, the chunks `from`…seq, one after another;
 * - a dropped event: `{kind: 'events_dropped', count: 1, digest}`, an event too large to keep;
 * - an event kept without its bulk: `{…, inRecord: true}`, a terminal event's result or error, or a
 *   prompt, too large to keep here and read from the execution's record instead.
 */
export type StoredEvent = ExecutionEvent & {
  from?: number;
  lengths?: number[];
  inRecord?: true;
  digest?: string;
};

/** What a stored event that is only a stand-in (or a pending prompt) reads from the execution's record. */
export interface RecordedParts {
  result?: unknown;
  error?: { message: string; type: string };
  interactions?: Record<string, { prompt: unknown; status?: string } | undefined>;
  /** The interaction the execution waits on, if any. */
  openInteractionId?: string;
  /** The OAuth consent it waits on, if any (status `oauth_required`). */
  status?: string;
  oauth?: { authUrl: string; state: string; provider: string };
}

/** Reads the record of an execution (undefined when there is none). */
export type RecordReader = (executionId: string) => Promise<RecordedParts | undefined>;

/** An event as JSON, its seq left out (the entry id says it), bigints as strings. */
export function serialize(event: ExecutionEventBody | StoredEvent): string {
  const { seq: _seq, ...body } = event as StoredEvent;
  try {
    return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return JSON.stringify({ ...body, result: null, value: null, step: undefined });
  }
}

/** A Stream entry as the event it holds (undefined: not one). */
export function decode([id, fields]: [id: string, fields: string[]]): StoredEvent | undefined {
  const at = fields.indexOf('e');
  try {
    const event = JSON.parse(String(fields[at + 1])) as StoredEvent;
    event.seq = Number.parseInt(id, 10);
    return event;
  } catch {
    return undefined;
  }
}

/** The stand-in for an event too large to keep: the kinds a re-attacher needs keep their shape. */
export function standIn(event: ExecutionEvent): StoredEvent {
  switch (event.kind) {
    case 'completed':
      return { kind: 'completed', streamed: event.streamed, result: null, seq: event.seq, inRecord: true };
    case 'failed':
      return { kind: 'failed', error: { message: '', type: '' }, seq: event.seq, inRecord: true };
    case 'interaction_required':
      return { ...event, prompt: null, inRecord: true };
    case 'cancelled':
      // The end must reach every follower; a reason is the server's own words, cut short here.
      return { kind: 'cancelled', reason: event.reason.slice(0, 256), seq: event.seq };
    default:
      return { kind: 'events_dropped', count: 1, seq: event.seq, digest: signatureDigest(event) };
  }
}

/** The event a stand-in kept without its bulk stood for, its bulk read from the record. */
export async function restore(
  event: StoredEvent,
  executionId: string,
  read: RecordReader | undefined,
): Promise<ExecutionEvent> {
  if (!event.inRecord) return event;
  const { inRecord: _inRecord, ...rest } = event;
  const record = await read?.(executionId).catch(() => undefined);
  switch (rest.kind) {
    case 'completed':
      return { ...rest, result: record?.result ?? null };
    case 'failed':
      return { ...rest, error: record?.error ?? { message: 'The execution failed', type: 'Error' } };
    case 'interaction_required':
      return { ...rest, prompt: record?.interactions?.[rest.interactionId]?.prompt ?? null };
    default:
      return rest;
  }
}

/**
 * The prompt (or OAuth consent) an execution waits on, as its record says: the event that showed it,
 * without its seq.
 */
export async function pendingPrompt(
  executionId: string,
  read: RecordReader | undefined,
): Promise<Extract<ExecutionEventBody, { kind: 'interaction_required' | 'oauth_required' }> | undefined> {
  const record = await read?.(executionId).catch(() => undefined);
  if (record?.status === 'oauth_required' && record.oauth) {
    const { authUrl, state, provider } = record.oauth;
    return { kind: 'oauth_required', authUrl, state, provider };
  }
  const interactionId = record?.openInteractionId;
  const open = interactionId ? record?.interactions?.[interactionId] : undefined;
  if (!interactionId || !open || (open.status !== undefined && open.status !== 'open')) return undefined;
  return { kind: 'interaction_required', interactionId, prompt: open.prompt };
}

/** The chunks of a merged run, each with its own seq (a takeover compares them one by one). */
export function chunksOf(event: StoredEvent): ExecutionEvent[] {
  const { from, lengths, value } = event as StoredEvent & { value: string };
  if (from === undefined || !lengths) return [event];
  const chunks: ExecutionEvent[] = [];
  let at = 0;
  lengths.forEach((length, i) => {
    chunks.push({ kind: 'output', value: value.slice(at, at + length), seq: from + i });
    at += length;
  });
  return chunks;
}

/** A merged run as a follower that got everything up to `afterSeq` should see it: the part after. */
export function runAfter(event: StoredEvent, afterSeq: number): ExecutionEvent {
  const { from, lengths, value, seq } = event as StoredEvent & { value: string };
  if (from === undefined || !lengths) return event;
  let skip = 0;
  for (let i = 0; i <= afterSeq - from && i < lengths.length; i++) skip += lengths[i];
  return { kind: 'output', value: value.slice(skip), seq };
}

/** The events a re-attacher must be able to answer even once they were trimmed from the Stream. */
export function isPrompt(event: { kind: string }): boolean {
  return event.kind === 'interaction_required' || event.kind === 'oauth_required';
}
