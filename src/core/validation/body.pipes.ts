import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { AppError, ErrorCode } from '../errors/app-error';
import { jsonDepth, MAX_JSON_DEPTH, validatePlain } from './validation-issues';

/**
 * A JSON body the parser could not read (too large, or not JSON), put in the body's place so the
 * route that reads it reports it in its own error shape (its exception filter: FastAPI's 422 or
 * OpenAI's error) rather than the parser answering for every route alike.
 */
export class UnreadableBody {
  constructor(
    /** The parser's message (body-parser's, e.g. `Unexpected token } in JSON at position 7`). */
    readonly message: string,
    /** Whether it was refused for its size rather than its syntax. */
    readonly tooLarge: boolean,
    /** The setting whose limit it passed (`max_body_bytes` or `max_stream_body_bytes`). */
    readonly setting: string,
  ) {}
}

function positionOf(message: string): number {
  const match = /position (\d+)/.exec(message);
  return match ? Number(match[1]) : 0;
}

/** Why a body could not be read: 413 naming the setting, or FastAPI's 422 `json_invalid`. */
export function unreadableError(body: UnreadableBody): AppError {
  if (body.tooLarge) {
    return new AppError(
      ErrorCode.PayloadTooLarge,
      `Request body is larger than the limit (${body.message}; general.front_end.${body.setting})`,
    );
  }
  return AppError.validation([
    {
      type: 'json_invalid',
      loc: ['body', positionOf(body.message)],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: body.message },
    },
  ]);
}

/** The body as parsed, or the AppError that says why it could not be read. */
export function readableBody(body: unknown): unknown {
  if (body instanceof UnreadableBody) throw unreadableError(body);
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

/**
 * The global pipe (APP_PIPE): every `@Body()` gets the body as parsed, or a 413 or 422 that says why
 * it could not be read. It runs before the route's own pipes, which validate what it passes on.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'body' ? readableBody(value) : value;
  }
}

type Ctor<T> = new () => T;

/** The input as sent when it fits the DTO class; a FastAPI-style 422 (`loc` from `from`) otherwise. */
export function checkedInput<T extends object>(dto: Ctor<T>, input: unknown, from: 'body' | 'query'): T {
  const checked = validatePlain(dto, input, [from]);
  if (!checked.ok) throw AppError.validation(checked.issues);
  return input as T;
}

/**
 * Validates a body (or query) against a DTO class, FastAPI style (422 with `loc` from `body`), for
 * `@Body(new ValidateBodyPipe(Dto))`. Returns the input as sent: extra fields pass through untouched.
 */
@Injectable()
export class ValidateBodyPipe<T extends object> implements PipeTransform<unknown, T> {
  constructor(private readonly dto: Ctor<T>) {}

  transform(input: unknown, metadata: ArgumentMetadata): T {
    return checkedInput(this.dto, input, metadata.type === 'query' ? 'query' : 'body');
  }
}
