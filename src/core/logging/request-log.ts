import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { markQuiet, requestContextOf, type RequestLogFields } from './request-context';

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

  /**
   * No closing line for this request when it succeeds: files a page fetches on every visit (its
   * script, stylesheet, icon, the API docs' assets) would bury the requests that say something. A
   * failure (4xx, 5xx, aborted) is still logged.
   */
  quiet(req: IncomingMessage): void {
    markQuiet(req);
  }
}
