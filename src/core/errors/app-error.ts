/** Every failure a service can report, one enum so filters can switch over it exhaustively. */
export enum ErrorCode {
  ValidationFailed = 'validation_failed',
  WorkflowFailed = 'workflow_error',
  BadRequest = 'bad_request',
  NotFound = 'not_found',
  AlreadyResolved = 'already_resolved',
  Conflict = 'conflict',
  TooManyWaiting = 'too_many_waiting',
  PayloadTooLarge = 'payload_too_large',
  MethodNotAllowed = 'method_not_allowed',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  Unavailable = 'unavailable',
  NotInteractive = 'not_interactive',
  Internal = 'internal_error',
}

/** One entry of a FastAPI/pydantic style validation error list. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { issues?: ValidationIssue[]; errorType?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  static validation(issues: ValidationIssue[]): AppError {
    return new AppError(
      ErrorCode.ValidationFailed,
      issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '),
      {
        issues,
      },
    );
  }
}

/** A workflow that threw: carries the original error's message and type name (NAT's `details`). */
export class WorkflowError extends AppError {
  constructor(message: string, errorType: string) {
    super(ErrorCode.WorkflowFailed, message, { errorType });
  }

  static from(err: unknown): WorkflowError {
    if (err instanceof WorkflowError) return err;
    if (err instanceof AppError) return new WorkflowError(err.message, err.extra.errorType ?? err.name);
    if (err instanceof Error) {
      const type =
        (err as { errorType?: string }).errorType ??
        (err.name !== 'Error' ? err.name : err.constructor?.name);
      return new WorkflowError(err.message, type || 'Error');
    }
    return new WorkflowError(String(err), 'Error');
  }
}

/**
 * Whether an error's message is meant for the caller: the `expose` convention of http-errors and
 * Koa. The engine's and the workflow author's own errors (a scripted `fail`, a prompt time-out, an
 * agent's limits) set `expose = true`, and an AppError is the server's own answer. Anything else (a
 * library's, the operating system's, an LLM endpoint's) may name hosts, ports, paths or what an
 * upstream said: callers get a stable message and the log gets the detail.
 */
export function isExposed(err: unknown): boolean {
  if (err instanceof AppError) return err.code !== ErrorCode.Internal;
  return typeof err === 'object' && err !== null && (err as { expose?: unknown }).expose === true;
}

/** What a caller reads instead of an internal error: the trace id finds the detail in the log. */
export function internalErrorMessage(traceId: string | undefined): string {
  const trace = traceId ? ` (trace ${traceId})` : '';
  return `The workflow failed with an internal error${trace}; the server log has the details`;
}
