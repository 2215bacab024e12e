import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AppError, ErrorCode, WorkflowError } from '../core/errors/app-error';
import type { TerminalEvent } from '../core/events/execution-event';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import type { BuiltFunction } from '../runtime/function-type';
import type { RequestMetadata } from '../runtime/workflow-context';
import { runWorkflow, type ExecutionSink } from '../runtime/workflow-runner';
import { ExecutionEventLog } from './execution-event-log';
import type { ExecutionRecord } from './execution-record';
import { ExecutionStore } from './execution.store';

export interface StartOptions {
  request: RequestMetadata;
  /** Whether the face can deliver a human's answer (prompts fail otherwise). */
  interactive: boolean;
  /** The workflow to run; the configured one by default. */
  workflow?: BuiltFunction;
}

/** A running (or finished) execution as a face sees it: its id, its events, and a way to stop it. */
export interface Execution {
  readonly id: string;
  readonly events: ExecutionEventLog;
  /** Resolves with the terminal event (completed, failed or cancelled). */
  readonly done: Promise<TerminalEvent>;
  cancel(reason: string): void;
  /**
   * Marks the id as handed to a client (a 202 body, an SSE event): the finished record then stays
   * readable for `execution_ttl_seconds`. Executions nobody can name are dropped when they end.
   */
  expose(): void;
}

/** Why a workflow was stopped from outside; workflows see it as `ctx.signal.reason`. */
export class ExecutionCancelled extends Error {
  constructor(readonly reason: string) {
    super(`Execution cancelled: ${reason}`);
    this.name = 'ExecutionCancelled';
  }
}

/** The one execution engine every face uses: starts workflows, records them, streams their events. */
@Injectable()
export class ExecutionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ExecutionService.name);
  private readonly live = new Map<string, { execution: Execution; controller: AbortController }>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly store: ExecutionStore,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const ttl = this.config.general.execution_ttl_seconds * 1000;
    this.sweeper = setInterval(() => void this.store.evictExpired(Date.now()), Math.min(ttl, 60_000));
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const { controller } of this.live.values())
      controller.abort(new ExecutionCancelled('server shutting down'));
  }

  async start(input: unknown, identity: Identity, options: StartOptions): Promise<Execution> {
    const workflow = options.workflow ?? this.config.workflow;
    const now = Date.now();
    const record: ExecutionRecord = {
      id: randomUUID(),
      ownerId: identity.userId,
      workflow: workflow.type,
      status: 'running',
      interactive: options.interactive,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.create(record);

    const controller = new AbortController();
    const events = new ExecutionEventLog();
    let exposed = false;
    const execution: Execution = {
      id: record.id,
      events,
      done: events.done,
      cancel: (reason) => controller.abort(new ExecutionCancelled(reason)),
      expose: () => (exposed = true),
    };
    this.live.set(record.id, { execution, controller });
    const sink: ExecutionSink = {
      publish: (event) => void events.append(event),
      prompt: () => Promise.reject(this.notInteractive('ask a human (ctx.prompt)', options.interactive)),
      authenticate: () =>
        Promise.reject(this.notInteractive('authorize with OAuth (ctx.authenticate)', options.interactive)),
    };
    const run = (async () =>
      runWorkflow(workflow, input, {
        executionId: record.id,
        identity,
        request: options.request,
        signal: controller.signal,
        sink,
      }))();
    void this.settle(record.id, run, controller.signal, events, () => exposed);
    return execution;
  }

  /** The live execution, if this process runs it. */
  find(id: string): Execution | undefined {
    return this.live.get(id)?.execution;
  }

  /** Turns the workflow's outcome into its terminal event and record. */
  private async settle(
    id: string,
    run: Promise<unknown>,
    signal: AbortSignal,
    events: ExecutionEventLog,
    exposed: () => boolean,
  ): Promise<void> {
    let end: Partial<ExecutionRecord>;
    try {
      const result = await run;
      events.append({ kind: 'completed', result });
      end = { status: 'completed', result };
    } catch (err) {
      if (signal.aborted) {
        const reason = (signal.reason as ExecutionCancelled | undefined)?.reason ?? 'cancelled';
        events.append({ kind: 'cancelled', reason });
        end = { status: 'cancelled', error: { message: reason, type: 'ExecutionCancelled' } };
      } else {
        const failure = WorkflowError.from(err);
        const error = { message: failure.message, type: failure.extra.errorType ?? 'Error' };
        events.append({ kind: 'failed', error });
        end = { status: 'failed', error };
      }
    }
    this.live.delete(id);
    await this.finish(id, end, exposed());
  }

  private async finish(id: string, patch: Partial<ExecutionRecord>, keep: boolean): Promise<void> {
    const now = Date.now();
    try {
      if (!keep) return await this.store.delete(id);
      await this.store.update(id, {
        ...patch,
        updatedAt: now,
        expiresAt: now + this.config.general.execution_ttl_seconds * 1000,
      });
    } catch (err) {
      this.logger.error(`Could not record the end of execution ${id}: ${(err as Error).message}`);
    }
  }

  private notInteractive(what: string, interactive: boolean): AppError {
    const message = interactive
      ? `This workflow tried to ${what}, which this server version does not support yet.`
      : `This workflow tried to ${what}, but this route is not interactive. Use an interactive route such as /v1/workflow or /v1/chat instead.`;
    return new AppError(ErrorCode.NotInteractive, message, { errorType: 'NotInteractiveError' });
  }
}
