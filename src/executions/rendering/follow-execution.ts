import { isTerminal, type ExecutionEvent } from '../../runtime/execution-event';
import type { Execution } from '../model/execution';

/** Feeds every event of an execution (missed ones first) to `onEvent`; resolves after the terminal one. */
export function followExecution(
  execution: Execution,
  onEvent: (event: ExecutionEvent) => void,
  afterSeq = 0,
): Promise<void> {
  return new Promise((resolve) => {
    execution.events.subscribe((event) => {
      onEvent(event);
      if (isTerminal(event)) resolve();
    }, afterSeq);
    // Resuming after the terminal event (Last-Event-ID of the last frame): nothing to replay, it is over.
    const terminal = execution.events.terminal;
    if (terminal && terminal.seq <= afterSeq) resolve();
  });
}
