/**
 * Talking to the AG-UI face the way front ends do: the official `HttpAgent` of `@ag-ui/client` 1.0
 * (transport, enforcement, verifier), raw POSTs for what the client would refuse to send, and every
 * frame checked against the `@ag-ui/core` 1.0 event schemas.
 */
import { randomUUID } from 'node:crypto';
import { HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import type { BaseEvent, Interrupt } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';

export type AguiEvent = BaseEvent & Record<string, unknown>;

/** Fails the test on an event `@ag-ui/core` 1.0 would not accept as it is. */
export function expectValidEvent(event: unknown): void {
  const parsed = EventSchema.safeParse(event);
  if (!parsed.success)
    throw new Error(`Invalid AG-UI event ${JSON.stringify(event)}: ${parsed.error.message}`);
  const e = event as Record<string, unknown>;
  expect(Number.isInteger(e.timestamp)).toBe(true);
  // Absent means absent: no optional field is sent as null.
  const nulls = Object.entries(e).filter(([k, v]) => v === null && k !== 'snapshot');
  expect(nulls).toEqual([]);
}

/** An HttpAgent on `url` whose every event is recorded and schema-checked. */
export class RecordingAgent {
  readonly agent: HttpAgent;
  events: AguiEvent[] = [];

  constructor(url: string, options: { threadId?: string; headers?: Record<string, string> } = {}) {
    this.agent = new HttpAgent({ url, threadId: options.threadId ?? randomUUID(), headers: options.headers });
    this.agent.subscribe({
      // Checked once the run is over: a subscriber's throw would only be logged by the client.
      onEvent: ({ event }) => void this.events.push(event as AguiEvent),
    });
  }

  get threadId(): string {
    return this.agent.threadId;
  }

  get pendingInterrupts(): Interrupt[] {
    return this.agent.pendingInterrupts;
  }

  say(text: string): this {
    this.agent.addMessage({ id: randomUUID(), role: 'user', content: text });
    return this;
  }

  /** One run; returns only that run's events. */
  async run(params: RunAgentParameters = {}): Promise<AguiEvent[]> {
    this.events = [];
    // The 1.0 client warns when it strips material the spec does not describe: none may be sent.
    const warn = jest.spyOn(console, 'warn');
    try {
      await this.agent.runAgent(params);
      expect(warn.mock.calls.filter((c) => String(c[0]).includes('ag-ui'))).toEqual([]);
      this.events.forEach(expectValidEvent);
    } finally {
      warn.mockRestore();
    }
    return this.events;
  }

  /** Resumes every pending interrupt with `answers[id]` (resolved payload, or 'cancel'). */
  resume(answers: Record<string, unknown>): Promise<AguiEvent[]> {
    return this.run({
      resume: this.pendingInterrupts.map((i) =>
        answers[i.id] === 'cancel'
          ? { interruptId: i.id, status: 'cancelled' as const }
          : { interruptId: i.id, status: 'resolved' as const, payload: answers[i.id] },
      ),
    });
  }
}

export const types = (events: AguiEvent[]) => events.map((e) => e.type);

export const last = (events: AguiEvent[]) => events[events.length - 1];

/** The interrupts of a run that ended with the interrupt outcome. */
export function interruptsOf(events: AguiEvent[]): Interrupt[] {
  const finish = last(events) as { type: string; outcome?: { type: string; interrupts?: Interrupt[] } };
  expect(finish.type).toBe('RUN_FINISHED');
  expect(finish.outcome?.type).toBe('interrupt');
  return finish.outcome!.interrupts!;
}

/** The text of the run's assistant messages. */
export function textOf(events: AguiEvent[]): string {
  return events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => e.delta as string)
    .join('');
}

export interface RawRun {
  status: number;
  headers: Headers;
  contentType: string | null;
  body: string;
  events: AguiEvent[];
}

/** A POST the client would not send (a fresh agent, no guard): frames parsed and schema-checked. */
export async function postRun(
  url: string,
  input: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<RawRun> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ messages: [], runId: randomUUID(), ...input }),
  });
  const body = await res.text();
  const events: AguiEvent[] = [];
  if (res.status === 200) {
    expect(body).not.toContain('\r');
    for (const frame of body.split('\n\n')) {
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data === '') continue;
      const event = JSON.parse(data) as AguiEvent;
      expectValidEvent(event);
      events.push(event);
    }
  }
  return {
    status: res.status,
    headers: res.headers,
    contentType: res.headers.get('content-type'),
    body,
    events,
  };
}

/** The code of the run's RUN_ERROR (the run must have started, then failed). */
export function errorCodeOf(run: RawRun): string | undefined {
  expect(run.status).toBe(200);
  expect(run.events[0]?.type).toBe('RUN_STARTED');
  const end = last(run.events);
  expect(end.type).toBe('RUN_ERROR');
  return end.code as string | undefined;
}
