import { ArgumentsHost, Catch, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { AppExceptionFilter, statusOf } from '../core/http/app-exception.filter';
import { openAiError } from './openai-error';

/**
 * `/v1/chat/completions` and `/v1/responses` answer in OpenAI's error shape. Invalid requests are 400; a failed workflow
 * is 422, never a 5xx, because OpenAI SDKs retry 5xx and would run the workflow again.
 */
@Catch()
export class OpenAiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('OpenAI');
  private readonly fallback = new AppExceptionFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const error = this.fallback.toAppError(exception, ctx.getRequest<Request>());
    if (error.code === ErrorCode.Internal)
      this.logger.error(exception instanceof Error ? exception.stack : exception);
    const [status, body] = this.render(error);
    res.status(status).json(body);
  }

  private render(error: AppError): [number, unknown] {
    switch (error.code) {
      case ErrorCode.ValidationFailed: {
        const first = error.extra.issues?.[0];
        if (first?.type === 'json_invalid') {
          // The body is not JSON: no parameter is to blame (the loc's number is a character position).
          const cause = typeof first.ctx?.error === 'string' ? `${first.msg}: ${first.ctx.error}` : first.msg;
          return [
            400,
            openAiError(
              `We could not parse the JSON body of your request (${cause})`,
              'invalid_request_error',
              null,
              'json_invalid',
            ),
          ];
        }
        const param = first ? first.loc.filter((p) => p !== 'body').join('.') || null : null;
        const message = (error.extra.issues ?? []).map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
        return [
          400,
          openAiError(message || error.message, 'invalid_request_error', param, first?.type ?? null),
        ];
      }
      case ErrorCode.WorkflowFailed:
      case ErrorCode.NotInteractive:
        return [422, openAiError(error.message, 'workflow_error', null, 'workflow_error')];
      case ErrorCode.PayloadTooLarge:
        return [413, openAiError(error.message, 'invalid_request_error', null, 'payload_too_large')];
      default:
        return [
          statusOf(error.code),
          openAiError(
            error.message,
            error.code === ErrorCode.Internal ? 'server_error' : 'invalid_request_error',
            null,
            error.code,
          ),
        ];
    }
  }
}
