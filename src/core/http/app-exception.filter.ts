import {
  ArgumentsHost,
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  Optional,
  type ExceptionFilter,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../errors/app-error';
import { isDependencyOutage, OUTAGE_RETRY_AFTER_SECONDS } from '../errors/dependency-outage';
import { RouteTable } from './route-table';

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.ValidationFailed:
    case ErrorCode.WorkflowFailed:
    case ErrorCode.NotInteractive:
      return HttpStatus.UNPROCESSABLE_ENTITY;
    case ErrorCode.NotFound:
      return HttpStatus.NOT_FOUND;
    case ErrorCode.AlreadyResolved:
    case ErrorCode.BadRequest:
      return HttpStatus.BAD_REQUEST;
    case ErrorCode.PayloadTooLarge:
      return HttpStatus.PAYLOAD_TOO_LARGE;
    case ErrorCode.MethodNotAllowed:
      return HttpStatus.METHOD_NOT_ALLOWED;
    case ErrorCode.Conflict:
      return HttpStatus.CONFLICT;
    case ErrorCode.TooManyWaiting:
      return HttpStatus.TOO_MANY_REQUESTS;
    case ErrorCode.Unauthorized:
      return HttpStatus.UNAUTHORIZED;
    case ErrorCode.Forbidden:
      return HttpStatus.FORBIDDEN;
    case ErrorCode.Unavailable:
      return HttpStatus.SERVICE_UNAVAILABLE;
    case ErrorCode.Internal:
      return HttpStatus.INTERNAL_SERVER_ERROR;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

/** The FastAPI-style body NeMo Agent Toolkit clients already handle. */
export function errorBody(error: AppError): unknown {
  switch (error.code) {
    case ErrorCode.ValidationFailed:
      return { detail: error.extra.issues ?? [] };
    case ErrorCode.WorkflowFailed:
    case ErrorCode.NotInteractive:
      return { code: 'workflow_error', message: error.message, details: error.extra.errorType ?? 'Error' };
    default:
      return { detail: error.message };
  }
}

/**
 * Maps domain errors to HTTP for every route but the OpenAI one (which has its own filter).
 * Unknown routes are 404 JSON; a known path with another method is 405 with `Allow` (the methods the
 * route table, read from the router, serves it with).
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(@Optional() private readonly routes?: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const error = this.toAppError(exception, req);
    if (error.code === ErrorCode.Internal)
      this.logger.error(exception instanceof Error ? exception.stack : exception);
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) res.setHeader(name, value);
    res.status(statusOf(error.code)).json(errorBody(error));
  }

  toAppError(exception: unknown, req: Request): AppError {
    if (exception instanceof AppError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.NOT_FOUND) {
        const allowed = this.routes?.allowed(req.path) ?? [];
        if (allowed.length > 0) {
          return new AppError(ErrorCode.MethodNotAllowed, 'Method Not Allowed', {
            headers: { Allow: allowed.join(', ') },
          });
        }
        return new AppError(ErrorCode.NotFound, 'Not Found');
      }
      if (status === HttpStatus.PAYLOAD_TOO_LARGE)
        return new AppError(ErrorCode.PayloadTooLarge, exception.message);
      if (status < 500) return new AppError(ErrorCode.BadRequest, exception.message);
    }
    if (isDependencyOutage(exception)) {
      return new AppError(
        ErrorCode.Unavailable,
        'A service this server depends on is unavailable; retry shortly',
        {
          headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
        },
      );
    }
    return new AppError(ErrorCode.Internal, 'Internal Server Error');
  }
}
