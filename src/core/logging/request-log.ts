import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { requestContextOf, type RequestLogFields } from './request-context';

export type { RequestLogFields } from './request-context';

/**
 * Adds ids to a request's log lines: those logged from now on while it runs, and its closing line.
 * Without logging (no middleware gave the request a context) it does nothing.
 */
@Injectable()
export class RequestLog {
  assign(req: IncomingMessage, fields: RequestLogFields): void {
    const context = requestContextOf(req);
    if (context) Object.assign(context, fields);
  }
}
