import type { Execution } from '../executions/model/execution';
import type { ExecutionEvent } from '../runtime/execution-event';
import { ExecutionEventLog } from '../executions/event-log/execution-event-log';
import { StepAdaptor } from '../runtime/step-adaptor';
import { oauthConsent, type RemoteRun } from './remote-waits';
import { ReplyMessages, type ServerMessage } from './ws-messages';
import { WsRun, type RunListener } from './ws-run';

const PROMPT = { input_type: 'text', text: 'Your name?', timeout: 60 };

/** An execution as a face sees it; `handOver()` plays this replica stopping. */
function anExecution(events = new ExecutionEventLog()) {
  const listeners = new Set<() => void>();
  const execution: Execution = {
    id: 'e1',
    traceId: 't1',
    events,
    done: new Promise(() => undefined),
    cancel: async () => undefined,
    expose: () => undefined,
    onHandover: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { execution, handOver: () => listeners.forEach((l) => l()), listeners };
}

function aRun(execution: Execution, remote?: RemoteRun): WsRun {
  return new WsRun({
    execution,
    ownerId: 'u1',
    schema: 'chat_stream',
    messages: new ReplyMessages('p1', 'c1'),
    adaptor: new StepAdaptor('default'),
    remote,
  });
}

class Connection implements RunListener {
  readonly sent: ServerMessage[] = [];
  handedOverCalls = 0;
  send(message: ServerMessage): void {
    this.sent.push(message);
  }
  handedOver(): void {
    this.handedOverCalls++;
  }
}

describe('WsRun', () => {
  it('tells the connection it shows when this replica hands the run over, and stops listening once disposed', () => {
    const { execution, handOver, listeners } = anExecution();
    const run = aRun(execution);
    const connection = new Connection();
    run.attach(connection);
    handOver();
    expect(connection.handedOverCalls).toBe(1);
    run.dispose();
    expect(listeners.size).toBe(0);
  });

  describe('a connection that missed more than the bounded event log keeps', () => {
    const WORDS = 'x'.repeat(100);
    /** The first event a reader from the start gets: how many events the log no longer has. */
    const droppedFrom = (events: ExecutionEventLog, afterSeq = 0) => {
      let first: ExecutionEvent | undefined;
      events.subscribe((e) => (first ??= e), afterSeq)();
      return first as Extract<ExecutionEvent, { kind: 'events_dropped' }>;
    };
    const notice = (count: number) =>
      expect.objectContaining({
        type: 'system_intermediate_message',
        intermediate_parent_id: 'default',
        content: {
          name: 'Earlier events no longer available',
          payload: `${count} earlier events are no longer available`,
        },
      });

    it('is told how many are gone, then asked the prompt kept from among them, then gets the rest', () => {
      const events = new ExecutionEventLog({ maxBytes: 1024 });
      const { execution } = anExecution(events);
      const run = aRun(execution);
      events.append({ kind: 'output', value: 'seen' });
      const first = new Connection();
      run.attach(first);
      run.detach();
      events.append({ kind: 'interaction_required', interactionId: 'i1', prompt: PROMPT });
      for (let i = 0; i < 20; i++) events.append({ kind: 'output', value: WORDS });
      const dropped = droppedFrom(events, 1);
      const again = new Connection();
      run.attach(again);
      expect(again.sent[0]).toEqual(notice(dropped.count));
      expect(again.sent[1]).toMatchObject({ type: 'system_interaction_message', id: 'i1' });
      const rest = again.sent.slice(2);
      expect(rest.length).toBeGreaterThan(0);
      expect(rest.every((m) => m.type === 'system_response_message')).toBe(true);
      expect(dropped.count + 1 + rest.length).toBe(21);
    });

    it('taken over from another replica, is told of what the shared log trimmed past what it was shown', async () => {
      const events = new ExecutionEventLog({ maxBytes: 1024 });
      for (let i = 0; i < 30; i++) events.append({ kind: 'output', value: WORDS });
      const trimmedThrough = droppedFrom(events).seq;
      const { execution } = anExecution(events);
      const remote: RemoteRun = { delivered: 5, askedAt: () => undefined, open: [], waits: [] };
      const run = aRun(execution, remote);
      await run.caughtUp;
      const connection = new Connection();
      run.attach(connection);
      expect(connection.sent).toEqual([notice(trimmedThrough - 5)]);
    });
  });

  describe('taken over from a replica that died before its last events reached the shared log', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('shows the prompt and the OAuth consent the record says are open, the prompt with the time left', async () => {
      const { execution } = anExecution();
      const askedAt = Date.now() - 10_000;
      const remote: RemoteRun = {
        delivered: 3,
        askedAt: () => askedAt,
        open: ['i1', 'state-1'],
        waits: [
          { kind: 'prompt', id: 'i1', content: PROMPT, askedAt },
          { kind: 'oauth', id: 'state-1', content: oauthConsent('http://x/start?state=state-1'), askedAt },
        ],
      };
      const run = aRun(execution, remote);
      jest.advanceTimersByTime(3000);
      await run.caughtUp;
      const connection = new Connection();
      run.attach(connection);
      expect(connection.sent).toEqual([
        expect.objectContaining({
          type: 'system_interaction_message',
          id: 'i1',
          // Asked 10 s before the takeover, which waited 3 s for the log.
          content: { ...PROMPT, timeout: 47 },
        }),
        expect.objectContaining({
          type: 'system_interaction_message',
          id: 'state-1',
          content: expect.objectContaining({
            input_type: 'oauth_consent',
            text: 'http://x/start?state=state-1',
          }),
        }),
      ]);
      expect(run.waitingPrompts()).toEqual(['i1']);
    });

    it('does not show a wait the log already closed', async () => {
      const events = new ExecutionEventLog();
      const { execution } = anExecution(events);
      events.append({
        kind: 'interaction_resolved',
        interactionId: 'i1',
        response: { type: 'text', text: 'x' },
      });
      const remote: RemoteRun = {
        delivered: 0,
        askedAt: () => undefined,
        open: ['i1'],
        waits: [{ kind: 'prompt', id: 'i1', content: PROMPT, askedAt: Date.now() }],
      };
      const run = aRun(execution, remote);
      await run.caughtUp;
      const connection = new Connection();
      run.attach(connection);
      expect(connection.sent.filter((m) => m.type === 'system_interaction_message')).toEqual([]);
      expect(run.waitingPrompts()).toEqual([]);
    });
  });
});

describe('the token usage the run ends with', () => {
  /** An LLM_END step as the runner records it, with the usage its call reported. */
  const llmEnd = (uuid: string, prompt: number, completion: number) => ({
    kind: 'step' as const,
    step: {
      parent_id: 'root',
      function_ancestry: { function_id: 'root', function_name: 'agent', parent_id: null, parent_name: null },
      payload: {
        event_type: 'LLM_END' as const,
        event_timestamp: 1_700_000_000,
        span_event_timestamp: null,
        framework: null,
        name: 'model',
        tags: null,
        metadata: null,
        data: { output: 'ok' },
        usage_info: {
          token_usage: {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: prompt + completion,
          },
          num_llm_calls: 1,
          seconds_between_calls: 0,
        },
        UUID: uuid,
      },
    },
  });
  const traceOf = (connection: Connection) =>
    connection.sent.find((m) => m.type === 'observability_trace_message')?.content;

  it('adds up every model call once, shown or not, and re-attaching counts none twice', () => {
    const events = new ExecutionEventLog();
    const { execution } = anExecution(events);
    const run = aRun(execution);
    run.attach(new Connection());
    events.append(llmEnd('call-1', 100, 7));
    run.detach();
    events.append(llmEnd('call-2', 120, 3));
    const again = new Connection();
    run.attach(again);
    events.append({ kind: 'completed', result: 'done', streamed: true });
    expect(traceOf(again)).toEqual({
      observability_trace_id: 't1',
      token_usage: { prompt_tokens: 220, completion_tokens: 10, total_tokens: 230 },
    });
  });

  it('taken over from another replica, counts the calls the earlier connection was already shown', async () => {
    const events = new ExecutionEventLog();
    events.append(llmEnd('call-1', 100, 7));
    events.append(llmEnd('call-2', 120, 3));
    const { execution } = anExecution(events);
    const run = aRun(execution, { delivered: 2, askedAt: () => undefined, open: [], waits: [] });
    await run.caughtUp;
    const connection = new Connection();
    run.attach(connection);
    events.append({ kind: 'completed', result: 'done', streamed: true });
    expect(connection.sent.filter((m) => m.type === 'system_intermediate_message')).toEqual([]);
    expect(traceOf(connection)).toEqual({
      observability_trace_id: 't1',
      token_usage: { prompt_tokens: 220, completion_tokens: 10, total_tokens: 230 },
    });
  });

  it('is left out when no model call reported any', () => {
    const events = new ExecutionEventLog();
    const { execution } = anExecution(events);
    const run = aRun(execution);
    const connection = new Connection();
    run.attach(connection);
    events.append({ kind: 'completed', result: 'done', streamed: true });
    expect(traceOf(connection)).toEqual({ observability_trace_id: 't1' });
  });
});
