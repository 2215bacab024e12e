import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { WebSocket } from 'ws';
import { ConnectionCount } from '../core/connection-count';
import { AppError, internalErrorMessage, isExposed } from '../core/errors/app-error';
import { HttpSettings } from '../core/http/http-pipeline';
import { ANONYMOUS, type Identity } from '../core/identity/identity';
import { IdentityResolver } from '../core/identity/identity.resolver';
import { activeOtelTraceId } from '../core/tracing/otel';
import { observabilityTrace } from '../core/tracing/observability-trace';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import { StepAdaptor } from '../runtime/step-adaptor';
import type { InvalidFrame } from './interlude-ws.adapter';
import { ConversationRuns } from './conversation-runs';
import { userContentProblem, wsChatRequest } from './ws-user-content';
import {
  AuthMessageDto,
  authResponse,
  isStreaming,
  ReplyMessages,
  UserMessageDto,
  type WsErrorCode,
} from './ws-messages';
import { WsAnswers } from './ws-answers';
import {
  check,
  closeReason,
  handshakeMetadata,
  POLICY_VIOLATION,
  rejectFrame,
  SESSION_ID,
} from './ws-frames';
import { AbandonedRuns } from './abandoned-runs';
import { RemoteRuns } from './remote-runs';
import { WsRun } from './ws-run';
import { WsSession } from './ws-session';

/**
 * The WebSocket face: NAT's message schema over the same ExecutionService as
 * the HTTP faces. One run per connection at a time; a run waiting for a person outlives its socket and
 * is taken over by the next connection of the same user for that conversation.
 */
@Injectable()
export class GatewayService {
  private readonly sessions = new WeakMap<WebSocket, WsSession>();

  constructor(
    private readonly executions: ExecutionService,
    private readonly identities: IdentityResolver,
    private readonly config: ServerConfig,
    private readonly conversations: ConversationRuns,
    private readonly connections: ConnectionCount,
    private readonly answers: WsAnswers,
    private readonly remote: RemoteRuns,
    private readonly abandoned: AbandonedRuns,
    private readonly http: HttpSettings,
  ) {}

  open(socket: WebSocket, req: IncomingMessage): void {
    this.connections.websockets++;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const session = url.searchParams.get('session');
    const request = handshakeMetadata(req, url);
    let resolveReady!: () => void;
    const ready = new Promise<void>((resolve) => (resolveReady = resolve));
    const state = new WsSession(socket, request, ANONYMOUS, ready);
    this.sessions.set(socket, state);
    const origin = req.headers.origin;
    if (!this.http.socketOrigins.allows(origin, req.headers.host, this.identities.mode)) {
      const reason = `Origin not allowed (see general.front_end.cors.allow_origins): ${origin}`;
      socket.close(POLICY_VIOLATION, closeReason(reason));
      return;
    }
    if (session !== null && !SESSION_ID.test(session)) {
      socket.close(POLICY_VIOLATION, 'Invalid session ID');
      return;
    }
    const identified = (identity: Identity) => {
      state.identity = identity;
      // Messages wait for the takeover: a reply sent at once finds the prompt it answers.
      void this.takeOver(state).finally(resolveReady);
    };
    try {
      const identity = this.identities.resolve(req.headers, session ?? undefined, request.clientAddress);
      if (identity instanceof Promise) {
        identity.then(identified, (err: unknown) => this.refuse(state, err));
      } else {
        identified(identity);
      }
    } catch (err) {
      this.refuse(state, err);
    }
  }

  close(socket: WebSocket): void {
    const session = this.sessions.get(socket);
    if (!session || session.closed) return;
    session.closed = true;
    this.connections.websockets--;
    const run = session.run;
    session.run = null;
    if (!run || run.isEnded || run.holder !== session) return;
    run.detach();
    if (this.conversations.holds(run)) {
      this.abandoned.leave(run);
    } else {
      // Nobody could take it over: nothing would ever see its answer.
      void run.execution.cancel('client disconnected');
    }
  }

  userMessage(socket: WebSocket, message: unknown): void {
    this.with(socket, (session) => this.startRun(session, message));
  }

  interactionMessage(socket: WebSocket, message: unknown): void {
    this.with(socket, (session) => this.answers.answer(session, message));
  }

  authMessage(socket: WebSocket, message: unknown): void {
    this.with(socket, (session) => this.authenticate(session, message));
  }

  /** Beyond NAT: `stop_message` cancels the run this connection shows (the page's stop button). */
  stop(socket: WebSocket): void {
    this.with(socket, (session) => {
      const run = session.run;
      if (run && !run.isEnded) void run.execution.cancel('stopped by the user');
    });
  }

  invalidFrame(socket: WebSocket, frame: InvalidFrame): void {
    this.with(socket, (session) => this.reject(session, frame.code, 'Invalid message', frame.details));
  }

  private with(socket: WebSocket, task: (session: WsSession) => Promise<void> | void): void {
    const session = this.sessions.get(socket);
    if (session) void session.enqueue(() => task(session));
  }

  private refuse(session: WsSession, err: unknown): void {
    const reason = err instanceof AppError ? err.message : 'Invalid credentials';
    session.socket.close(POLICY_VIOLATION, closeReason(reason));
  }

  private reject(session: WsSession, code: WsErrorCode, message: string, details: string, parentId?: string) {
    rejectFrame(session, code, message, details, parentId);
  }

  /**
   * A connection opened with `?conversation_id=` takes over its user's run still going there: this
   * replica's own, or one another replica runs (found through the shared conversation links).
   */
  private async takeOver(session: WsSession): Promise<void> {
    const conversationId = session.conversationId;
    const userId = session.identity.userId;
    if (conversationId === null || userId === null) return;
    let run = this.conversations.get(userId, conversationId);
    if (!run || run.isEnded) {
      try {
        run = await this.remote.takeOver(session.identity, conversationId);
      } catch {
        run = undefined;
      }
      if (!run) return;
      if (session.closed) return run.dispose();
      const taken = run;
      this.conversations.set(userId, conversationId, taken);
      this.conversations.track(taken);
      // Not `execution.done`: read on a connection of its own, it could end the run before it is shown.
      void taken.finished.then(() => this.ended(taken));
    }
    this.abandoned.keep(run);
    const previous = run.attach(session);
    if (previous instanceof WsSession && previous !== session && previous.run === run) previous.run = null;
    session.run = run;
    this.remote.progress(run, { attachedAt: Date.now() });
  }

  private async startRun(session: WsSession, raw: unknown): Promise<void> {
    const checked = check(UserMessageDto, raw);
    if (!checked.ok) return this.reject(session, 'invalid_message', 'Invalid user_message', checked.details);
    const message = checked.value;
    const parentId = message.id ?? randomUUID();
    const conversationId = message.conversation_id ?? null;
    const history = message.content.messages;
    const problem = userContentProblem(history, this.config.workflow);
    if (problem) {
      const what = problem.startsWith('No user')
        ? 'User message content could not be found'
        : 'Attachment refused';
      return this.reject(session, 'invalid_user_message_content', what, problem, parentId);
    }
    if (this.config.general.auth.require_identity && session.identity.userId === null) {
      return this.reject(
        session,
        'invalid_message',
        'Authentication required',
        'This server requires an identity: connect with credentials or send an auth_message first',
        parentId,
      );
    }
    this.supersede(session);
    const request = wsChatRequest(message.schema_type, history);
    const replies = new ReplyMessages(parentId, conversationId);
    const trace = {
      ...observabilityTrace(session.request.headers, activeOtelTraceId),
      userMessageId: parentId,
      ...(conversationId !== null ? { conversationId } : {}),
    };
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    const identity = session.identity;
    try {
      await this.executions.start(this.config.workflow.fromChat(request), identity, {
        request: session.request,
        trace,
        interactive: true,
        streaming: isStreaming(message.schema_type),
        beforeRun: (execution) => {
          const run: WsRun = new WsRun({
            execution,
            ownerId: identity.userId,
            schema: message.schema_type,
            messages: replies,
            adaptor: new StepAdaptor(mode, custom_event_types),
            onPrompt: (seq) => this.remote.progress(run, { delivered: seq }),
          });
          session.run = run;
          if (identity.userId !== null && conversationId !== null) {
            this.conversations.set(identity.userId, conversationId, run);
            const schema = message.schema_type;
            const link = {
              executionId: execution.id,
              parentId,
              schema,
              delivered: 0,
              attachedAt: Date.now(),
            };
            this.remote.link(execution, identity.userId, conversationId, link);
          }
          this.conversations.track(run);
          run.attach(session);
          void execution.done.then(() => this.ended(run));
        },
      });
    } catch (err) {
      const failure = err instanceof Error ? err : new Error(String(err));
      if (!isExposed(err))
        new Logger('WebSocket').error(`A run could not start: ${failure.stack ?? failure}`);
      const message = isExposed(err) ? failure.message : internalErrorMessage(undefined);
      session.send(replies.error('workflow_error', failure.name, message));
      session.send(replies.response('', 'complete'));
    }
  }

  /** A new user message on a connection whose run is still going cancels that run, as NAT does. */
  private supersede(session: WsSession): void {
    const previous = session.run;
    session.run = null;
    if (!previous || previous.isEnded) return;
    this.forget(previous);
    void previous.execution.cancel('superseded by a new user message');
  }

  /** A finished run is no longer shown, waited for, or found by a reconnecting client. */
  private ended(run: WsRun): void {
    const holder = run.holder;
    if (holder instanceof WsSession && holder.run === run) holder.run = null;
    this.forget(run);
  }

  private forget(run: WsRun): void {
    this.abandoned.keep(run);
    if (this.conversations.holds(run)) this.remote.unlink(run);
    this.conversations.remove(run);
    run.dispose();
  }

  private async authenticate(session: WsSession, raw: unknown): Promise<void> {
    const parentId = typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : null;
    const checked = check(AuthMessageDto, raw);
    if (!checked.ok) return session.send(authResponse(parentId, { error: checked.details }));
    const outcome = await this.identities.fromCredentials(
      checked.value.payload,
      session.request.clientAddress,
    );
    if ('error' in outcome) return session.send(authResponse(parentId, outcome));
    const before = session.identity.userId;
    session.identity = outcome;
    // Identified only now (the page sends its API key or token this way): the run this user left
    // waiting in the conversation is theirs to take over, as on a connection identified at once.
    if (!session.run && outcome.userId !== before) await this.takeOver(session);
    session.send(authResponse(parentId, { userId: session.identity.userId }));
  }
}
