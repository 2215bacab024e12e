import { createHash } from 'node:crypto';
import type { ExecutionRecord } from '../executions/model/execution-record';
import type { AguiThread } from './agui-threads';
import { payloadProblem, type PendingInterrupt } from './interrupts';
import type { ResumeEntry, RunInput } from './run-input';

/** A contract rule the input broke (spec "Error handling"): RUN_ERROR with this code, interrupts left open. */
export interface RuleBreak {
  code:
    | 'PENDING_INTERRUPTS'
    | 'PARTIAL_RESUME'
    | 'UNKNOWN_INTERRUPT_ID'
    | 'INTERRUPT_EXPIRED'
    | 'INVALID_PAYLOAD'
    | 'THREAD_BUSY'
    | 'EXECUTION_GONE';
  message: string;
}

/** What a run on a thread does. */
export type Plan =
  | { kind: 'reject'; rule: RuleBreak }
  /** A new execution from the input's messages. */
  | { kind: 'start' }
  /** Follow the thread's execution after `afterSeq`, first answering `answers` (a fresh resume). */
  | {
      kind: 'follow';
      executionId: string;
      afterSeq: number;
      answers: { pending: PendingInterrupt; entry: ResumeEntry }[];
      fingerprint?: string;
    };

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Rule 5: a resume is the same when its (interruptId, status, payload) entries are, in any order. */
export function resumeFingerprint(threadId: string, resume: ResumeEntry[]): string {
  const entries = resume
    .map((e) => canonical({ i: e.interruptId, s: e.status, p: e.payload ?? null }))
    .sort()
    .join('\n');
  return createHash('sha256').update(`${threadId}\n${entries}`).digest('hex');
}

/** Whether the execution still waits on this interrupt (an answer from another face closes it). */
export function stillOpen(pending: PendingInterrupt, record: ExecutionRecord | undefined): boolean {
  if (!record) return false;
  if (pending.kind === 'oauth') return record.status === 'oauth_required';
  return record.interactions[pending.interrupt.id]?.status === 'open';
}

const rule = (code: RuleBreak['code'], message: string): Plan => ({
  kind: 'reject',
  rule: { code, message },
});

/**
 * Checks a run's input against the thread (spec contract rules 2–8) and says what the run does.
 * `record` is the thread's execution as the store has it now.
 */
export function planRun(
  thread: AguiThread,
  input: RunInput,
  record: ExecutionRecord | undefined,
  /**
   * Whether this process still holds the thread's execution, and the seq of its end if it ended.
   * `resumeToFollow` (anonymous threads): the only key to the thread is what the server issued its
   * client, its interrupt ids; a run that names none of them never follows the thread's execution.
   */
  execution: { live: boolean; endSeq?: number; resumeToFollow?: boolean },
  now = Date.now(),
): Plan {
  const { live, endSeq } = execution;
  const resume = input.resume ?? [];
  const fingerprint = resume.length ? resumeFingerprint(thread.id, resume) : undefined;
  const last = thread.lastResume;
  if (fingerprint && last?.fingerprint === fingerprint && live) {
    return { kind: 'follow', executionId: last.executionId, afterSeq: last.afterSeq, answers: [] };
  }
  const open = thread.interrupts.filter((p) => stillOpen(p, record));
  const known = new Map(thread.interrupts.map((p) => [p.interrupt.id, p]));
  const unknown = resume.find((e) => !known.has(e.interruptId) && !thread.earlier.includes(e.interruptId));
  if (unknown) return rule('UNKNOWN_INTERRUPT_ID', `No interrupt ${unknown.interruptId} on this thread`);
  if (open.length > 0 && !live)
    return rule('EXECUTION_GONE', 'The interrupted execution is no longer available');
  // The errors count the open interrupts and never name them: an id is what resumes the thread.
  if (open.length > 0 && resume.length === 0) {
    return rule(
      'PENDING_INTERRUPTS',
      `The thread has ${open.length} pending interrupt(s); resume them first (their ids are in the interrupted run's outcome)`,
    );
  }
  const byId = new Map(resume.map((e) => [e.interruptId, e]));
  const uncovered = open.filter((p) => !byId.has(p.interrupt.id));
  if (uncovered.length > 0) {
    return rule(
      'PARTIAL_RESUME',
      `The resume leaves ${uncovered.length} pending interrupt(s) open; resume every interrupt of the interrupted run`,
    );
  }
  const answers: { pending: PendingInterrupt; entry: ResumeEntry }[] = [];
  for (const pending of open) {
    const entry = byId.get(pending.interrupt.id)!;
    if (entry.status === 'cancelled') {
      answers.push({ pending, entry });
      continue;
    }
    if (pending.expiresAt !== undefined && pending.expiresAt <= now) {
      return rule(
        'INTERRUPT_EXPIRED',
        `Interrupt ${pending.interrupt.id} expired at ${pending.interrupt.expiresAt}; cancel it to continue the thread`,
      );
    }
    const problem = payloadProblem(pending, entry.payload);
    if (problem) return rule('INVALID_PAYLOAD', `Interrupt ${pending.interrupt.id}: ${problem}`);
    answers.push({ pending, entry });
  }
  const unseen = endSeq === undefined || endSeq > thread.cursor;
  if (thread.executionId && live && unseen && (endSeq === undefined || resume.length > 0)) {
    if (resume.length === 0 && execution.resumeToFollow) {
      return rule(
        'THREAD_BUSY',
        'The thread’s execution is still running; resume its interrupts to follow it, or use a new thread',
      );
    }
    // Interrupts answered elsewhere, or an execution still running: the run shows what comes next.
    return { kind: 'follow', executionId: thread.executionId, afterSeq: thread.cursor, answers, fingerprint };
  }
  return { kind: 'start' };
}
