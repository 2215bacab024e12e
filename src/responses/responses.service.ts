import { Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { requestMetadata } from '../core/http/request-metadata';
import { SseWriter } from '../core/http/sse-writer';
import type { Identity } from '../core/identity/identity';
import { RequestLog } from '../core/logging/request-log';
import { activeOtelTraceId } from '../core/tracing/otel';
import { observabilityTrace, TRACE_HEADER } from '../core/tracing/observability-trace';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ChatMessage } from '../runtime/chat-input';
import type { ExecutionEvent } from '../runtime/execution-event';
import { messageText } from '../runtime/chat-input';
import { CLIENT_TOOLS } from '../runtime/agents/client-tools';
import { answerOf } from './function-call-answer';
import { newResponseId, openingObject, type ResponseBase } from './response-object';
import { ended, followResponse } from './response-follow';
import { oauthCallId, ResponseRender, type StreamEvent } from './response-render';
import type { ResponseRequest } from './response-request';
import { chatMessagesOf, checkInputContent } from './input-content';
import { RESPONSES_FACE, type ResponsesFaceOptions } from './responses-face';
import { ResponsesStore, type StoredResponse } from './responses-store';
import { StoredResponses } from './stored-responses';

export const EXECUTION_HEADER = 'X-Execution-Id';

/** Where a response's events come from: a new execution, or the one its previous response waits on. */
interface Source {
  execution: Execution;
  afterSeq: number;
  conversation: ChatMessage[];
}

/**
 * Opens the response on its execution, once the execution may go on: the events after `afterSeq` are
 * its own; `stillWaiting` is the wait the previous response ended with when it is still open (this
 * response then ends with it again).
 */
type Open = (execution: Execution, afterSeq: number, stillWaiting?: ExecutionEvent) => void;

/**
 * `POST /v1/responses`: a new response starts the workflow with the conversation so far, or (its input
 * answering the function call its previous response ended with) goes on with the execution that
 * waits; then renders it as OpenAI does, whole, streamed, or in the background.
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly executions: ExecutionService,
    private readonly store: ResponsesStore,
    private readonly stored: StoredResponses,
    private readonly config: ServerConfig,
    @Optional() private readonly log?: RequestLog,
  ) {}

  async create(identity: Identity, request: ResponseRequest, req: Request, res: Response): Promise<void> {
    checkInputContent(request.input, this.config.workflow);
    const previous = request.previous_response_id
      ? await this.stored.current(identity, request.previous_response_id, 'Previous response')
      : undefined;
    const base = this.baseOf(request);
    const prompt = chatMessagesOf(request.input)
      .map((m) => messageText(m.content))
      .join('\n');
    let writer: SseWriter | undefined;
    const emit = request.stream ? (event: StreamEvent) => writer?.event(event.type, event) : undefined;
    const render = new ResponseRender(base, emit, prompt);
    let following: { ended: Promise<number>; stop: () => void } | undefined;
    // Before the workflow runs (or goes on): its events are followed as they come, token by token.
    const open: Open = (execution, afterSeq, stillWaiting) => {
      res.setHeader(EXECUTION_HEADER, execution.id);
      this.log?.assign(req, { executionId: execution.id });
      if (request.stream) writer = this.openStream(res);
      render.open();
      if (stillWaiting) render.render(stillWaiting);
      following = stillWaiting
        ? { ended: Promise.resolve(afterSeq), stop: () => {} }
        : followResponse(execution, render, afterSeq);
    };
    const source = request.input.some((i) => i.type === 'function_call_output')
      ? await this.resume(identity, request, previous, open)
      : await this.start(identity, request, previous, req, { base, prompt }, open);
    const { execution, afterSeq, conversation } = source;
    // What the response was as it opened (the render's own has moved on since).
    const opened = openingObject(base);
    const follow = following!;
    const stored: StoredResponse = {
      id: base.id,
      owner: identity.userId,
      executionId: execution.id,
      afterSeq,
      response: { ...opened, status: 'in_progress' },
      input: request.input,
      prompt,
      conversation,
      expiresAt: Date.now() + this.config.frontEnd.responses_ttl_seconds * 1000,
    };
    const keep = request.store || request.background;
    // A whole answer's id is known to nobody before it ends: it is stored once, ended.
    if (keep && (request.stream || request.background)) await this.store.put(stored);
    if (request.background && !request.stream) res.status(200).json(opened);
    writer?.onDisconnect(() => {
      follow.stop();
      // A background response goes on without its stream; another one stops with its client, as OpenAI's.
      if (!request.background) void execution.cancel('client disconnected');
    });
    const finished = follow.ended.then(async (lastSeq) => {
      if (keep) await this.store.put(ended(stored, render, lastSeq));
    });
    if (request.background) this.stored.running(base.id, execution, finished);
    if (request.background && !request.stream) return;
    await finished;
    if (writer) writer.end();
    else res.status(200).json(render.response);
  }

  private baseOf(request: ResponseRequest): ResponseBase {
    return {
      id: newResponseId(),
      created_at: Math.floor(Date.now() / 1000),
      background: request.background,
      instructions: request.instructions,
      metadata: request.metadata,
      model: request.model ?? this.config.workflow.model ?? this.config.workflow.type,
      previous_response_id: request.previous_response_id,
      store: request.store,
      temperature: request.temperature,
      tool_choice: request.tool_choice,
      tools: request.tools,
      top_p: request.top_p,
      user: request.user,
    };
  }

  private async start(
    identity: Identity,
    request: ResponseRequest,
    previous: StoredResponse | undefined,
    req: Request,
    face: ResponsesFaceOptions,
    open: Open,
  ): Promise<Source> {
    const conversation = [...(previous?.conversation ?? []), ...chatMessagesOf(request.input)];
    const system: ChatMessage[] = request.instructions
      ? [{ role: 'system', content: request.instructions }]
      : [];
    const trace = observabilityTrace(req.headers, activeOtelTraceId);
    req.res?.setHeader(TRACE_HEADER, trace.traceId);
    this.log?.assign(req, { userId: identity.userId, traceId: trace.traceId });
    // This input's images and files reach the workflow; the conversation kept for later carries their text.
    const said = [...(previous?.conversation ?? []), ...chatMessagesOf(request.input, true)];
    const input = this.config.workflow.fromChat({ messages: [...system, ...said] });
    const execution = await this.executions.start(input, identity, {
      // The client's function tools reach the workflow as AG-UI's do (`ctx.request.extras`), and an
      // agent's model as tools it may call (the response then ends with the call).
      request: {
        ...requestMetadata(req),
        extras: {
          responses: { tools: request.functionTools, tool_choice: request.tool_choice },
          [CLIENT_TOOLS]: request.functionTools.map(({ name, description, parameters }) => ({
            name,
            description,
            parameters,
          })),
        },
      },
      trace,
      interactive: true,
      face: { name: RESPONSES_FACE, options: face },
      streaming: request.stream || request.background,
      beforeRun: (started) => {
        // Its id goes out (header, record): the record stays readable, and the prompt answerable.
        started.expose();
        open(started, 0);
      },
    });
    return { execution, afterSeq: 0, conversation };
  }

  /** The input answers the function call the previous response ended with: the waiting execution goes on. */
  private async resume(
    identity: Identity,
    request: ResponseRequest,
    previous: StoredResponse | undefined,
    open: Open,
  ): Promise<Source> {
    const index = request.input.findIndex((i) => i.type === 'function_call_output');
    const output = request.input[index];
    if (output.type !== 'function_call_output') throw new Error('unreachable');
    const pending = previous?.pending;
    if (!previous || pending?.callId !== output.call_id) {
      throw AppError.validation([
        {
          type: 'value_error',
          loc: ['body', 'input', index, 'call_id'],
          msg: previous
            ? `No function call with call_id ${output.call_id} waits for an answer in response ${previous.id}`
            : 'A function_call_output needs previous_response_id: the response whose function call it answers',
          input: output.call_id,
        },
      ]);
    }
    const record = await this.executions.record(identity, previous.executionId).catch(() => undefined);
    const execution =
      this.executions.find(previous.executionId) ?? (record && (await this.executions.attach(record)));
    if (!execution) {
      throw AppError.validation([
        {
          type: 'value_error',
          loc: ['body', 'input', index, 'call_id'],
          msg: `The function call ${output.call_id} no longer waits for an answer`,
          input: output.call_id,
        },
      ]);
    }
    if (pending.kind === 'tool') {
      // The client's result is the tool's, as it is: never read as NAT's answer (it may be any JSON).
      const answer = { type: 'text', text: output.output };
      await this.respondOnce(identity, execution.id, pending.interactionId, answer);
    }
    if (pending.kind === 'prompt') {
      const answer = answerOf(pending.prompt, output.output, index);
      await this.respondOnce(identity, execution.id, pending.interactionId, answer);
    }
    const conversation = [...previous.conversation];
    const afterSeq = previous.endSeq ?? previous.afterSeq;
    const oauth = record?.oauth;
    // Answered before the consent is done: the consent is still what the workflow waits for.
    const stillWaiting: ExecutionEvent | undefined =
      pending.kind === 'oauth' &&
      record?.status === 'oauth_required' &&
      oauth &&
      oauthCallId(oauth.state) === pending.callId
        ? { kind: 'oauth_required', ...oauth, seq: afterSeq }
        : undefined;
    open(execution, afterSeq, stillWaiting);
    return { execution, afterSeq, conversation };
  }

  private async respondOnce(
    identity: Identity,
    executionId: string,
    interactionId: string,
    answer: Record<string, unknown>,
  ): Promise<void> {
    try {
      await this.executions.respond(identity, executionId, interactionId, answer);
    } catch (err) {
      // Answered from another face in the meantime: the first answer won, this response shows what follows.
      if (!(err instanceof AppError && err.code === ErrorCode.AlreadyResolved)) throw err;
    }
  }

  private openStream(res: Response): SseWriter {
    const writer = new SseWriter(res, this.config.frontEnd.sse_keepalive_seconds * 1000);
    writer.open();
    return writer;
  }
}
