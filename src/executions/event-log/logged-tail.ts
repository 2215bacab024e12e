import { createHash } from 'node:crypto';
import type { ExecutionEventBody } from '../../runtime/execution-event';
import type { IntermediateStep } from '../../runtime/intermediate-step';
import type { JournalEntry } from '../../runtime/run-journal';

/**
 * What a run taken over had published after its last journal point, before its replica went away:
 * the replay publishes those events again once it goes past the journal. Each one it publishes that
 * is the next of these is in the log already and is not published twice; from the first that differs
 * (a workflow that behaves otherwise this time) the replay publishes what it does.
 */
export class LoggedTail {
  private next = 0;

  constructor(private readonly events: readonly ExecutionEventBody[]) {}

  /** Whether `event` is the next logged event (then it is used up); false from the first that is not. */
  repeats(event: ExecutionEventBody): boolean {
    const logged = this.events[this.next];
    if (logged && sameAs(logged, event)) {
      this.next++;
      return true;
    }
    this.next = this.events.length;
    return false;
  }

  /** Every logged event was matched, or one was not. */
  get exhausted(): boolean {
    return this.next >= this.events.length;
  }
}

/**
 * The seq of the log when the run's latest journal point was journaled: what the log holds after it
 * came after every point the replay answers from the journal. Undefined when an entry does not say
 * (journaled before entries kept it): the replay then publishes everything past the journal.
 */
export function journaledSeq(entries: readonly JournalEntry[]): number | undefined {
  let seq = 0;
  for (const entry of entries) {
    if (entry.seq === undefined) return undefined;
    seq = Math.max(seq, entry.seq);
  }
  return seq;
}

/**
 * The highest seq the run's journal says its log had reached (0 when no entry says): its log goes on
 * after it even when the log itself holds less (Redis restarted empty).
 */
export function reachedSeq(entries: readonly JournalEntry[]): number {
  return entries.reduce((seq, entry) => Math.max(seq, entry.seq ?? 0), 0);
}

/**
 * Whether the logged event is this one. An event too large for the log is logged as a stand-in
 * (`events_dropped` with the digest of its signature).
 */
function sameAs(logged: ExecutionEventBody, event: ExecutionEventBody): boolean {
  const digest = logged.kind === 'events_dropped' ? (logged as { digest?: string }).digest : undefined;
  return digest !== undefined ? digest === signatureDigest(event) : signature(logged) === signature(event);
}

/** A short digest of what `LoggedTail` compares of an event. */
export function signatureDigest(event: ExecutionEventBody): string {
  return createHash('sha256').update(signature(event)).digest('base64url').slice(0, 22);
}

/** An event as JSON, without what differs between two runs doing the same thing (seq, step ids and times). */
function signature(event: ExecutionEventBody): string {
  const shape = event.kind === 'step' ? stepShape(event.step) : { ...event, seq: undefined };
  return JSON.stringify(shape, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function stepShape(step: IntermediateStep): unknown {
  const { payload, function_ancestry: at } = step;
  return {
    kind: 'step',
    type: payload.event_type,
    name: payload.name,
    framework: payload.framework,
    tags: payload.tags,
    metadata: payload.metadata,
    data: payload.data,
    tokens: payload.usage_info?.token_usage,
    within: [at?.function_name, at?.parent_name],
  };
}
