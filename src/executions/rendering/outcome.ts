import { AppError, ErrorCode, WorkflowError } from '../../core/errors/app-error';
import type { TerminalEvent } from '../../runtime/execution-event';

/** The result of a finished execution, or the error its face reports. */
export function outcome(end: TerminalEvent): unknown {
  switch (end.kind) {
    case 'completed':
      return end.result;
    case 'failed':
      throw new WorkflowError(end.error.message, end.error.type);
    case 'cancelled':
      throw new AppError(ErrorCode.WorkflowFailed, `Execution cancelled (${end.reason})`, {
        errorType: 'ExecutionCancelled',
      });
  }
}
