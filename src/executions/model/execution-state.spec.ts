import type { ExecutionRecord } from './execution-record';
import { applyTransition, IllegalTransition, type ExecutionTransition } from './execution-state';

const prompt = { input_type: 'text', text: 'Name?', placeholder: '', required: true } as never;

function aRecord(patch: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    id: 'e1',
    traceId: 't1',
    ownerId: null,
    workflow: 'scripted',
    status: 'running',
    interactive: true,
    createdAt: 1,
    updatedAt: 1,
    interactions: {},
    ...patch,
  };
}

const opened = (interactionId = 'i1'): ExecutionTransition => ({
  kind: 'interaction_opened',
  interactionId,
  interaction: { prompt, status: 'open', deadline: null },
});
const closed = (interactionId = 'i1'): ExecutionTransition => ({
  kind: 'interaction_closed',
  interactionId,
  status: 'resolved',
});
const completed: ExecutionTransition = { kind: 'completed', result: 'done', expiresAt: 99 };
const failed: ExecutionTransition = {
  kind: 'failed',
  error: { message: 'boom', type: 'Error' },
  expiresAt: 99,
};
const oauthPending: ExecutionTransition = {
  kind: 'oauth_pending',
  oauth: { authUrl: 'http://a', state: 's', provider: 'p' },
};

/** Applies transitions in order from a running record; returns the last result. */
function run(...transitions: ExecutionTransition[]) {
  let record = aRecord();
  let last = { outcome: 'applied' as string, record };
  for (const t of transitions) {
    last = applyTransition(record, t, 5);
    record = last.record;
  }
  return last;
}

describe('execution state machine', () => {
  it('asks, is answered, and completes with the raw result', () => {
    expect(run(opened()).record).toMatchObject({ status: 'interaction_required', openInteractionId: 'i1' });
    const answered = run(opened(), closed());
    expect(answered.record.status).toBe('running');
    expect(answered.record.openInteractionId).toBeUndefined();
    expect(answered.record.interactions.i1.status).toBe('resolved');
    expect(run(opened(), closed(), completed).record).toMatchObject({
      status: 'completed',
      result: 'done',
      expiresAt: 99,
      updatedAt: 5,
    });
  });

  it('waits for OAuth and goes back to running when the flow ends', () => {
    expect(run(oauthPending).record).toMatchObject({ status: 'oauth_required', oauth: { state: 's' } });
    const resolved = run(oauthPending, { kind: 'oauth_resolved' }).record;
    expect(resolved.status).toBe('running');
    expect(resolved.oauth).toBeUndefined();
  });

  it('lets only the first close of an interaction through (compare-and-set)', () => {
    expect(run(opened(), closed(), closed()).outcome).toBe('already_closed');
    expect(run(closed('nope')).outcome).toBe('not_found');
  });

  it('keeps a second open question current while the first is still open', () => {
    const record = run(opened('i1'), opened('i2'), closed('i1')).record;
    expect(record.status).toBe('interaction_required');
    expect(record.openInteractionId).toBe('i2');
  });

  it('records a wait torn down after the end without reopening the execution', () => {
    const cancelled = run(opened(), failed, closed()).record;
    expect(cancelled.status).toBe('failed');
    expect(cancelled.interactions.i1.status).toBe('resolved');
    expect(run(oauthPending, failed, { kind: 'oauth_resolved' }).record.status).toBe('failed');
  });

  it('does not modify the record it is given', () => {
    const record = aRecord();
    applyTransition(record, opened(), 5);
    expect(record).toEqual(aRecord());
  });

  it('refuses to start a wait after the end', () => {
    expect(() => run(failed, oauthPending)).toThrow(
      'Execution e1: oauth_pending would move it from failed to oauth_required, which is not allowed',
    );
  });

  it.each([
    ['completed', completed, opened()],
    ['completed', completed, completed],
    ['completed', completed, failed],
    ['failed', failed, oauthPending],
    ['failed', failed, completed],
  ])('refuses to leave %s (%#) with a clear message', (from, end, next) => {
    const ended = run(end).record;
    expect(() => applyTransition(ended, next, 6)).toThrow(IllegalTransition);
    expect(() => applyTransition(ended, next, 6)).toThrow(
      `Execution e1: ${next.kind} would move it from ${from} to`,
    );
  });
});
