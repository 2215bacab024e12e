import type { Execution } from '../executions/model/execution';
import type { ChatMessage } from '../runtime/chat-input';
import { outputText } from './response-object';
import type { ResponseRender } from './response-render';
import type { StoredResponse } from './responses-store';

/**
 * Feeds the execution's events after `afterSeq` to the response until it ends (the execution ended, or
 * waits for a person); resolves with the last event it rendered. `stop` ends the following early (the
 * stream's client left): it resolves with what was rendered so far.
 */
export function followResponse(
  execution: Execution,
  render: ResponseRender,
  afterSeq: number,
): { ended: Promise<number>; stop: () => void } {
  let stop = () => {};
  const ended = new Promise<number>((resolve) => {
    let lastSeq = afterSeq;
    let done = false;
    const subscription: { unsubscribe?: () => void } = {};
    const finish = () => {
      if (done) return;
      done = true;
      queueMicrotask(() => subscription.unsubscribe?.());
      resolve(lastSeq);
    };
    stop = finish;
    subscription.unsubscribe = execution.events.subscribe((event) => {
      if (done) return;
      lastSeq = event.seq;
      if (render.render(event)) finish();
    }, afterSeq);
    // Resuming past the terminal event: nothing more will come.
    const terminal = execution.events.terminal;
    if (terminal && terminal.seq <= afterSeq) finish();
    if (done) subscription.unsubscribe();
  });
  return { ended, stop };
}

/** The stored response once it has ended: its object, where it stopped, and the conversation with its answer. */
export function ended(stored: StoredResponse, render: ResponseRender, lastSeq: number): StoredResponse {
  // Not a copy: its following is over, so no event changes the object any more.
  const { response } = render;
  const text = outputText(response.output);
  const answer: ChatMessage[] = text === '' ? [] : [{ role: 'assistant', content: text }];
  return {
    ...stored,
    response,
    endSeq: lastSeq,
    pending: render.pending,
    conversation: [...stored.conversation, ...answer],
  };
}
