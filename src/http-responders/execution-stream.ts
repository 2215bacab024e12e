import type { ServerResponse } from 'node:http';
import { isTerminal, type ExecutionEvent } from '../runtime/execution-event';
import { SseWriter } from '../core/http/sse-writer';
import type { Prompt } from '../runtime/prompts';
import type { Execution } from '../executions/model/execution';
import type { ExecutionUrls } from './execution-urls';
import { followExecution } from '../executions/rendering/follow-execution';

export type Render = (event: ExecutionEvent) => void;

export interface StreamOptions {
  keepAliveMs: number;
  /** Interactive streams number their frames and name the execution in `X-Execution-Id`. */
  interactive: boolean;
  cancelOnDisconnect: boolean;
  /** Resume after this event (a re-attaching client's Last-Event-ID). */
  afterSeq?: number;
}

/** Opens an SSE response for an execution and renders its events until it ends or the client leaves. */
export async function streamExecution(
  res: ServerResponse,
  execution: Execution,
  makeRenderer: (writer: SseWriter) => Render,
  options: StreamOptions,
): Promise<void> {
  const writer = new SseWriter(res, options.keepAliveMs);
  writer.open(options.interactive ? { 'X-Execution-Id': execution.id } : {});
  if (options.cancelOnDisconnect) writer.onDisconnect(() => void execution.cancel('client disconnected'));
  const render = makeRenderer(writer);
  let stopWatching: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    writer.onDisconnect(resolve);
    // This replica stops and another goes on with the execution: the client re-attaches there.
    stopWatching = execution.onHandover?.(() => {
      if (!writer.isClosed) writer.endForReattach(REATTACH_RETRY_MS);
      resolve();
    });
    void followExecution(
      execution,
      (event) => {
        if (writer.isClosed) return;
        if (options.interactive) writer.eventId = event.seq;
        render(event);
      },
      options.afterSeq,
    ).then(() => {
      // The renderer ends the response on the terminal event; a resume past it has to end it here.
      if (!writer.isClosed) writer.end();
      resolve();
    });
  });
  stopWatching?.();
}

/** How soon a client whose stream ended for a handover should re-attach. */
const REATTACH_RETRY_MS = 1000;

/** The first moment a non-streaming request can answer: the end, or a pause for a person. */
export function firstStop(execution: Execution): Promise<ExecutionEvent> {
  return new Promise((resolve) => {
    const unsubscribe = execution.events.subscribe((event) => {
      const paused =
        (event.kind === 'interaction_required' && (event.prompt as Prompt).input_type !== 'notification') ||
        event.kind === 'oauth_required';
      if (paused || isTerminal(event)) {
        resolve(event);
        queueMicrotask(() => unsubscribe());
      }
    });
  });
}

/** The 202 body of a request that paused, as NeMo Agent Toolkit sends it. */
export function pausedBody(
  executionId: string,
  event: ExecutionEvent,
  urls: ExecutionUrls,
): Record<string, unknown> {
  const base = { execution_id: executionId, status_url: urls.status(executionId) };
  if (event.kind === 'oauth_required') {
    return { ...base, status: 'oauth_required', auth_url: event.authUrl, oauth_state: event.state };
  }
  if (event.kind !== 'interaction_required') throw new Error(`not a pause: ${event.kind}`);
  return {
    ...base,
    status: 'interaction_required',
    interaction_id: event.interactionId,
    prompt: event.prompt,
    response_url: urls.response(executionId, event.interactionId),
  };
}

/** Writes the typed interactive events; returns false for events that are not interactive. */
export function writeInteractiveEvent(
  writer: SseWriter,
  event: ExecutionEvent,
  executionId: string,
  urls: ExecutionUrls,
): boolean {
  if (event.kind === 'interaction_required') {
    writer.event('interaction_required', {
      event_type: 'interaction_required',
      execution_id: executionId,
      interaction_id: event.interactionId,
      prompt: event.prompt,
      response_url: urls.response(executionId, event.interactionId),
    });
    return true;
  }
  if (event.kind === 'events_dropped') {
    writer.event('events_dropped', {
      event_type: 'events_dropped',
      execution_id: executionId,
      count: event.count,
      message: `${event.count} earlier events are no longer available`,
    });
    return true;
  }
  if (event.kind === 'oauth_required') {
    writer.event('oauth_required', {
      event_type: 'oauth_required',
      execution_id: executionId,
      auth_url: event.authUrl,
      oauth_state: event.state,
    });
    return true;
  }
  return false;
}
