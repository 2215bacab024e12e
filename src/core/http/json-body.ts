import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import type { StreamRoutes } from './route-table';
import { UnreadableBody } from '../validation/body.pipes';

interface ParseError {
  type?: string;
  status?: number;
  message: string;
}

type RequestWithBody = Request & { bodyBytes?: number };

export interface BodyLimits {
  /** `max_body_bytes`. */
  body: number;
  /** `max_stream_body_bytes`: streaming routes hold their request for as long as they stream. */
  stream: number;
}

/**
 * Parses JSON bodies but never answers by itself: a body that is too large or not JSON becomes an
 * UnreadableBody in the body's place, reported by the route that reads it (JsonBodyPipe), in that
 * route's own error shape.
 */
export function jsonBodyParser(limits: BodyLimits, streams: StreamRoutes) {
  const options = { strict: false, type: ['application/json', 'application/*+json'] };
  const recordSize = (req: RequestWithBody, _res: unknown, buf: Buffer) => (req.bodyBytes = buf.length);
  const parseBody = express.json({ ...options, limit: limits.body, verify: recordSize });
  const parseStream = express.json({ ...options, limit: limits.stream });
  return (req: Request, res: Response, next: NextFunction) => {
    const stream = streams.byPath(req.path);
    const parse = stream ? parseStream : parseBody;
    parse(req, res, (err?: unknown) => {
      const request = req as RequestWithBody;
      if (err) {
        const { type, status, message } = err as ParseError;
        const tooLarge = type === 'entity.too.large' || status === 413;
        const setting = stream ? 'max_stream_body_bytes' : 'max_body_bytes';
        request.body = new UnreadableBody(message, tooLarge, setting);
      } else if (
        streams.byBody(req.path) &&
        (request.bodyBytes ?? 0) > limits.stream &&
        (req.body as { stream?: unknown } | undefined)?.stream === true
      ) {
        request.body = new UnreadableBody('request entity too large', true, 'max_stream_body_bytes');
      }
      next();
    });
  };
}
