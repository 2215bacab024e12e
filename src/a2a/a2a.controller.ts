import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  A2A_ERROR_CODE,
  JsonRpcRequestMalformedError,
  RequestMalformedError,
  toJsonRpcError,
} from '@a2a-js/sdk/errors';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import type { Request, RequestHandler, Response } from 'express';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { requestMetadata } from '../core/http/request-metadata';
import { activeOtelTraceId } from '../core/tracing/otel';
import { observabilityTrace, TRACE_HEADER } from '../core/tracing/observability-trace';
import { UnreadableBody } from '../core/validation/body.pipes';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';
import { JsonRpcResponseDto } from './dto/json-rpc-response.dto';
import { A2aCaller } from './a2a-caller';
import { A2aTasks } from './a2a-tasks';
import { sentPartsProblem } from './sent-parts';

const CALLER = Symbol('a2a caller');
type CallerRequest = Request & { [CALLER]?: A2aCaller };

/** A JSON-RPC error answer the SDK's handler never sees. */
function refusal(code: number, message: string, id: unknown = null) {
  return {
    jsonrpc: '2.0',
    id,
    error: toJsonRpcError(new JsonRpcRequestMalformedError({ message, envelopeCode: code })),
  };
}

const validId = (id: unknown) => id === null || typeof id === 'string' || Number.isInteger(id);

/**
 * What JSON-RPC 2.0 says about a body before any method runs: -32700 when it is not JSON, -32600 when
 * it is not a request object. (The SDK 1.3 handler answers -32602 for both.) Undefined: a request.
 */
function refusalOf(req: Request) {
  // The body parser leaves what it could not read in the body's place (core/validation/body.pipes.ts).
  if (req.body instanceof UnreadableBody) {
    const err = req.body;
    if (err.tooLarge) {
      return refusal(
        A2A_ERROR_CODE.INVALID_REQUEST,
        `Request body is larger than the limit (${err.message}; general.front_end.${err.setting})`,
      );
    }
    return refusal(A2A_ERROR_CODE.PARSE_ERROR, `Parse error: ${err.message}`);
  }
  const body = req.body as Record<string, unknown> | undefined;
  if (body === undefined) return undefined; // no JSON content type: the SDK answers that
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refusal(A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: expected one JSON-RPC request object');
  }
  const id = 'id' in body && validId(body.id) ? body.id : null;
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || ('id' in body && !validId(body.id))) {
    return refusal(
      A2A_ERROR_CODE.INVALID_REQUEST,
      'Invalid Request: needs jsonrpc "2.0", a method and a valid id',
      id,
    );
  }
  return undefined;
}

const MESSAGE_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);

/** A message whose parts the SDK's handler would misread (sent-parts.ts): -32602 naming the part. */
function partsRefusal(body: Record<string, unknown> | undefined) {
  if (!body || !MESSAGE_METHODS.has(body.method as string)) return undefined;
  const params = body.params as { message?: { parts?: unknown } } | undefined;
  const problem = sentPartsProblem(params?.message?.parts);
  if (problem === undefined) return undefined;
  const id = 'id' in body ? body.id : null;
  return { jsonrpc: '2.0', id, error: toJsonRpcError(new RequestMalformedError(problem)) };
}

/** The A2A JSON-RPC endpoint (`general.front_end.a2a_path`), served by the SDK's Express handler. */
@ApiTags('A2A')
@Controller()
export class A2aController {
  private readonly rpc: RequestHandler;

  constructor(private readonly tasks: A2aTasks) {
    this.rpc = jsonRpcHandler({
      requestHandler: tasks,
      userBuilder: (req) => Promise.resolve((req as CallerRequest)[CALLER]!),
    });
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'A2A JSON-RPC: SendMessage, SendStreamingMessage (SSE), GetTask, CancelTask, SubscribeToTask',
    description:
      'A task is an execution; a person’s prompt makes it input-required, answered by the next SendMessage.',
  })
  @ApiBody({ schema: { type: 'object', description: 'A JSON-RPC 2.0 request' } })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: 'A JSON-RPC response, or SSE frames of JSON-RPC responses for streams',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(JsonRpcResponseDto) } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  @ApiExtraModels(JsonRpcResponseDto)
  @ApiCommonErrors()
  async handle(
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const refused = refusalOf(req) ?? partsRefusal(req.body as Record<string, unknown> | undefined);
    if (refused) {
      res.status(200).json(refused);
      return;
    }
    const trace = observabilityTrace(req.headers, activeOtelTraceId);
    res.setHeader(TRACE_HEADER, trace.traceId);
    const caller = new A2aCaller(identity, requestMetadata(req), trace);
    const unsubscribable = await this.subscribeRefusal(req.body, caller);
    if (unsubscribable) {
      res.status(200).json(unsubscribable);
      return;
    }
    // The SDK's handler is an Express router for `/`: it sees this request at its own root.
    const inner = Object.create(req, { url: { value: '/', writable: true } }) as CallerRequest;
    inner[CALLER] = caller;
    this.rpc(inner, res, () => {
      if (!res.headersSent) res.status(404).end();
    });
  }

  /**
   * A `SubscribeToTask` that cannot start (task not found, or ended), answered as a plain JSON-RPC
   * error: the SDK's handler would learn it only from the stream's first read and log it as a
   * "Pre-stream error" before answering the same.
   */
  private async subscribeRefusal(body: unknown, caller: A2aCaller) {
    const request = body as { method?: unknown; id?: unknown; params?: { id?: unknown } } | undefined;
    const taskId = request?.params?.id;
    if (request?.method !== 'SubscribeToTask' || typeof taskId !== 'string' || taskId === '')
      return undefined;
    try {
      await this.tasks.subscribable(taskId, caller);
      return undefined;
    } catch (err) {
      return { jsonrpc: '2.0', id: request.id ?? null, error: toJsonRpcError(err) };
    }
  }
}
