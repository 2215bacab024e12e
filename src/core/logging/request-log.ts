import type { IncomingMessage } from 'node:http';
import { Injectable, Optional } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';

/** What a face learns about a request after it arrived, for its log lines. */
export interface RequestLogFields {
  userId?: string | null;
  executionId?: string;
  traceId?: string;
}

const FIELDS = Symbol('interlude.requestLogFields');
type Annotated = IncomingMessage & { [FIELDS]?: RequestLogFields };

/** The fields assigned to a request so far (read by the line logged when its response ends). */
export function requestLogFields(req: IncomingMessage): RequestLogFields {
  return (req as Annotated)[FIELDS] ?? {};
}

/** Adds ids to a request's log lines: those logged from now on while it runs, and its closing line. */
@Injectable()
export class RequestLog {
  constructor(@Optional() private readonly pino?: PinoLogger) {}

  assign(req: IncomingMessage, fields: RequestLogFields): void {
    if (!this.pino) return; // no logging configured
    const annotated = req as Annotated;
    annotated[FIELDS] = { ...annotated[FIELDS], ...fields };
    try {
      this.pino.assign(fields);
    } catch {
      // Outside a request's logging context (no logging middleware ran): the closing line still has them.
    }
  }
}
