import { Logger } from '@nestjs/common';

/** What any caller reads of a failure whose detail is internal: a stable message and the trace id. */
export const INTERNAL_ERROR =
  /^The workflow failed with an internal error \(trace ([0-9a-f]{32})\); the server log has the details$/;

/** The trace id an internal-error message names. */
export function traceIn(message: unknown): string {
  const match = INTERNAL_ERROR.exec(String(message));
  if (!match) throw new Error(`not the internal-error message: ${String(message)}`);
  return match[1];
}

/**
 * Nest's error log while a test runs: where an internal error's detail goes. Call in beforeEach and
 * restore in afterEach.
 */
export function captureErrorLog() {
  const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  return {
    /** Every error line so far, message and stack joined. */
    lines: (): string[] => spy.mock.calls.map((args) => args.map((a) => String(a)).join('\n')),
    /** The line that names `traceId`. */
    lineFor(traceId: string): string {
      const line = this.lines().find((l) => l.includes(`trace ${traceId}`));
      if (!line) throw new Error(`no error logged for trace ${traceId}`);
      return line;
    },
    restore: () => spy.mockRestore(),
  };
}
