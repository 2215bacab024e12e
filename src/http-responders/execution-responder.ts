import { Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { isTerminal, type ExecutionEvent } from '../runtime/execution-event';
import type { Identity } from '../core/identity/identity';
import { requestMetadata } from '../core/http/request-metadata';
import type { SseWriter } from '../core/http/sse-writer';
import { RequestLog } from '../core/logging/request-log';
import { traceOf } from '../core/tracing/request-trace.guard';
import { ServerConfig } from '../config/server-config';
import type { BuiltFunction } from '../runtime/function-type';
import { outcome } from '../executions/rendering/outcome';
import type { Execution } from '../executions/model/execution';
import { ExecutionService } from '../executions/engine/execution.service';
import type { FaceRef } from '../executions/model/execution-record';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import { firstStop, pausedBody, streamExecution } from './execution-stream';
import { ExecutionUrls } from './execution-urls';
import { sseRendererOf, type SseFaceRenderer } from './sse-face';

/** How one route answers with an execution: the face that renders it, the function it runs, whether a person can answer. */
export interface ExecutionRoute {
  /** Its renderer's name, and what that renderer needs for this execution (kept on the record). */
  ref: FaceRef;
  /** The function the route runs; the configured workflow when unset. */
  workflow?: BuiltFunction;
  /** Whether the route can deliver a person's answer (prompts fail elsewhere). */
  interactive: boolean;
  /** For non-interactive routes: the interactive route to name in the error. */
  interactiveRoute?: string;
}

/**
 * Answers an HTTP request with an execution, the same way for every face: 200 with the result, or on
 * interactive routes 202 when the workflow pauses; streams that survive lost connections.
 */
@Injectable()
export class ExecutionResponder {
  readonly urls: ExecutionUrls;

  constructor(
    private readonly executions: ExecutionService,
    private readonly renderers: FaceRenderers,
    private readonly config: ServerConfig,
    @Optional() private readonly log?: RequestLog,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
  }

  async reply(
    input: unknown,
    identity: Identity,
    req: Request,
    face: ExecutionRoute,
  ): Promise<{ status: 200 | 202; body: unknown }> {
    const renderer = this.rendererOf(face);
    const body = (result: unknown) => renderer.result(result, face.ref.options);
    const execution = await this.start(input, identity, req, face, false);
    const stop = await this.untilStop(identity, execution, face.interactive);
    if (isTerminal(stop)) return { status: 200, body: body(outcome(stop)) };
    execution.expose();
    return { status: 202, body: pausedBody(execution.id, stop, this.urls) };
  }

  async stream(
    input: unknown,
    identity: Identity,
    req: Request,
    res: Response,
    face: ExecutionRoute,
  ): Promise<void> {
    let streaming: Promise<void> | undefined;
    const frontEnd = this.config.frontEnd;
    const renderer = this.rendererOf(face);
    await this.start(input, identity, req, face, true, (execution) => {
      if (face.interactive) execution.expose();
      const withTrace = (writer: SseWriter) => {
        // NAT names the trace once, before the first step (SSE parsers skip the unknown field). A
        // re-attached stream sends only the frames the client missed, so only the first stream has it.
        writer.field('observability_trace', { observability_trace_id: execution.traceId });
        return renderer.stream(writer, face.ref.options, execution.id);
      };
      streaming = streamExecution(res, execution, withTrace, {
        keepAliveMs: frontEnd.sse_keepalive_seconds * 1000,
        interactive: face.interactive,
        cancelOnDisconnect: !face.interactive || frontEnd.on_disconnect === 'cancel',
      });
    });
    await streaming;
  }

  /**
   * The end, or on interactive routes the first pause. When this replica stops and hands the run to
   * another, the wait goes on through the shared event log (the server drains open requests).
   */
  private async untilStop(
    identity: Identity,
    execution: Execution,
    pauses: boolean,
  ): Promise<ExecutionEvent> {
    const wait = (e: Execution): Promise<ExecutionEvent> => (pauses ? firstStop(e) : e.done);
    if (!execution.onHandover) return wait(execution);
    let stopListening = () => undefined as unknown;
    const handedOver = new Promise<undefined>((resolve) => {
      stopListening = execution.onHandover!(() => resolve(undefined));
    });
    try {
      const stop = await Promise.race([wait(execution), handedOver]);
      if (stop) return stop;
    } finally {
      stopListening();
    }
    const elsewhere = await this.executions.attach(await this.executions.record(identity, execution.id));
    if (!elsewhere)
      throw new AppError(ErrorCode.Unavailable, 'The server stopped; poll the execution elsewhere');
    return wait(elsewhere);
  }

  /** Starts the execution, in the trace RequestTraceGuard read (its route is `@Traced()`). */
  private start(
    input: unknown,
    identity: Identity,
    req: Request,
    face: ExecutionRoute,
    streaming: boolean,
    beforeRun?: (e: Execution) => void,
  ) {
    return this.executions.start(input, identity, {
      request: requestMetadata(req),
      trace: traceOf(req),
      interactive: face.interactive,
      interactiveRoute: face.interactiveRoute,
      workflow: face.workflow,
      face: face.ref,
      streaming,
      // A request answered with its result stores its record only if it pauses or its id goes out (a
      // durable run, which a takeover could replay, is recorded at once all the same).
      deferRecord: !streaming,
      beforeRun: (execution) => {
        this.log?.assign(req, { executionId: execution.id });
        beforeRun?.(execution);
      },
    });
  }

  private rendererOf(face: ExecutionRoute): SseFaceRenderer<unknown> {
    const renderer = sseRendererOf(this.renderers, face.ref.name);
    if (!renderer) throw new Error(`No renderer is registered for face "${face.ref.name}"`);
    return renderer;
  }
}
