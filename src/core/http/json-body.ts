import { createParamDecorator, Injectable, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { AppError, ErrorCode } from '../errors/app-error';
import type { StreamRoutes } from './route-table';
import { jsonDepth, MAX_JSON_DEPTH, validatePlain } from '../validation/validation-issues';

interface BodyError {
  type?: string;
  status?: number;
  message: string;
  body?: string;
  /** The setting whose limit the body passed. */
  setting?: string;
}

type RequestWithBody = Request & { bodyError?: BodyError; bodyBytes?: number };

export interface BodyLimits {
  /** `max_body_bytes`. */
  body: number;
  /** `max_stream_body_bytes`: streaming routes hold their request for as long as they stream. */
  stream: number;
}

/**
 * Parses JSON bodies but never answers by itself: a body that is too large or not JSON is recorded
 * on the request and reported by the route that reads it, in that route's own error shape.
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
        request.bodyError = err as BodyError;
        request.bodyError.setting = stream ? 'max_stream_body_bytes' : 'max_body_bytes';
      } else if (
        streams.byBody(req.path) &&
        (request.bodyBytes ?? 0) > limits.stream &&
        (req.body as { stream?: unknown } | undefined)?.stream === true
      ) {
        request.body = undefined;
        request.bodyError = {
          status: 413,
          message: 'request entity too large',
          setting: 'max_stream_body_bytes',
        };
      }
      next();
    });
  };
}

function positionOf(message: string): number {
  const match = /position (\d+)/.exec(message);
  return match ? Number(match[1]) : 0;
}

function readBody(req: RequestWithBody): unknown {
  const err = req.bodyError;
  if (err) {
    if (err.type === 'entity.too.large' || err.status === 413) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `Request body is larger than the limit (${err.message}; general.front_end.${err.setting ?? 'max_body_bytes'})`,
      );
    }
    throw AppError.validation([
      {
        type: 'json_invalid',
        loc: ['body', positionOf(err.message)],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: err.message },
      },
    ]);
  }
  const body: unknown = req.body;
  if (jsonDepth(body) > MAX_JSON_DEPTH) {
    throw AppError.validation([
      {
        type: 'json_invalid',
        loc: ['body'],
        msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
        input: {},
      },
    ]);
  }
  return body;
}

/** The request's JSON body (undefined when none was sent); parse failures surface as AppErrors. */
export const JsonBody = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  readBody(ctx.switchToHttp().getRequest<RequestWithBody>()),
);

type Ctor<T> = new () => T;

/** The input as sent when it fits the DTO class; a FastAPI-style 422 (`loc` from `from`) otherwise. */
export function checkedInput<T extends object>(dto: Ctor<T>, input: unknown, from: 'body' | 'query'): T {
  const checked = validatePlain(dto, input, [from]);
  if (!checked.ok) throw AppError.validation(checked.issues);
  return input as T;
}

/** Validates the body against a DTO class, FastAPI style (422 with `loc` from `body`). Returns the body as sent. */
@Injectable()
export class ValidateBodyPipe<T extends object> implements PipeTransform<unknown, T> {
  constructor(
    private readonly dto: Ctor<T>,
    private readonly from: 'body' | 'query' = 'body',
  ) {}

  transform(body: unknown): T {
    return checkedInput(this.dto, body, this.from);
  }
}
