import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Message } from '@ag-ui/core';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { SseWriter } from '../core/http/sse-writer';
import type { Identity } from '../core/identity/identity';
import type { RequestMetadata } from '../core/request-metadata';
import type { ObservabilityTrace } from '../core/tracing/observability-trace';
import { ServerConfig } from '../config/server-config';
import type { Execution } from '../executions/model/execution';
import { ExecutionService } from '../executions/engine/execution.service';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { AguiThreads, type AguiThread } from './agui-threads';
import { AGUI_FACE } from './agui-face';
import { answerFor, type PendingInterrupt } from './interrupts';
import { chatRequestOf } from './messages';
import { checkAttachments } from '../runtime/attachments';
import { planRun, type Plan } from './resume-plan';
import { RunRenderer, type Emit, type Stop } from './run-renderer';
import type { ResumeEntry, RunInput } from './run-input';
import { extrasOf, RunExtras } from './run-extras';
import { ThreadHold } from './thread-hold';

/** How a run's rendering ended, and the last execution event it rendered. */
type Following = Promise<{ stop?: Stop; lastSeq: number; handedOver?: boolean }>;

const ownerOf = (identity: Identity) => identity.userId ?? 'anonymous';

/** What a run needs of its HTTP exchange: the request as a workflow sees it, its trace, its stream. */
export interface RunExchange {
  request: RequestMetadata;
  trace: ObservabilityTrace;
  /** Opens the SSE answer, naming the execution it follows (when there is one) to the client and logs. */
  open(executionId?: string): SseWriter;
}

/**
 * One AG-UI run: checks the input against its thread (the interrupt contract rules), starts or
 * resumes the thread's execution on the shared ExecutionService, and streams what it does until it
 * ends or waits for a person.
 */
@Injectable()
export class AguiRunService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(AguiRunService.name);
  private sweeper?: NodeJS.Timeout;
  private readonly extras = new RunExtras();

  constructor(
    private readonly executions: ExecutionService,
    private readonly threads: AguiThreads,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const every = Math.min(this.config.frontEnd.ag_ui_thread_ttl_seconds * 1000, 60_000);
    this.sweeper = setInterval(() => {
      this.threads.sweep().catch((err: Error) => this.logger.warn(`Sweeping AG-UI threads: ${err.message}`));
    }, every);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  async run(identity: Identity, input: RunInput, exchange: RunExchange): Promise<void> {
    const resuming = (input.resume?.length ?? 0) > 0;
    const owner = ownerOf(identity);
    const hold = await ThreadHold.take(this.threads, input.threadId, owner, this.logger, resuming);
    if (!hold) {
      const writer = exchange.open();
      const renderer = this.renderer(input, '', writer);
      renderer.started();
      renderer.error('THREAD_BUSY', `A run is already streaming on thread ${input.threadId}`);
      writer.end();
      return;
    }
    try {
      await this.runOn(hold, identity, input, exchange);
    } finally {
      await hold.release();
    }
  }

  private async runOn(
    hold: ThreadHold,
    identity: Identity,
    input: RunInput,
    exchange: RunExchange,
  ): Promise<void> {
    const { thread } = hold;
    const { plan, execution: current } = await this.plan(identity, thread, input);
    let out: { writer: SseWriter; renderer: RunRenderer; following?: Following } | undefined;
    // The stream opens (and follows the execution) before its workflow runs, so no event is merged or missed.
    const begin = (execution: Execution | undefined, afterSeq = 0) => {
      const writer = exchange.open(execution?.id);
      const renderer = this.renderer(input, execution?.id ?? '', writer);
      renderer.started();
      out = { writer, renderer };
      if (execution) out.following = this.follow(execution, renderer, writer, afterSeq);
    };
    if (plan.kind === 'start') {
      const agui = extrasOf(input);
      const started = await this.executions.start(this.workflowInput(input), identity, {
        request: { ...exchange.request, extras: { agui } },
        trace: exchange.trace,
        interactive: true,
        face: { name: AGUI_FACE, options: { threadId: input.threadId } },
        streaming: true,
        beforeRun: (execution) => {
          execution.expose();
          this.extras.hand(execution, agui);
          this.threads.setInterrupts(thread, []);
          Object.assign(thread, { executionId: execution.id, cursor: 0, lastResume: undefined });
          begin(execution);
        },
      });
      if (thread.executionId === started.id) await this.threads.save(thread);
    } else if (plan.kind === 'follow') {
      const execution = current?.id === plan.executionId ? current : undefined;
      begin(execution, plan.afterSeq);
      if (execution && plan.answers.length > 0) {
        thread.lastResume = {
          fingerprint: plan.fingerprint!,
          executionId: execution.id,
          afterSeq: plan.afterSeq,
        };
        await this.threads.save(thread);
        this.extras.renew(execution.id, input);
        await this.answer(identity, execution, plan.answers);
      }
    } else {
      begin(undefined);
    }
    const { writer, renderer, following } = out!;
    if (!following) {
      renderer.error(plan.kind === 'reject' ? plan.rule.code : 'EXECUTION_GONE', this.reason(plan));
      writer.end();
      return;
    }
    const { stop, lastSeq, handedOver } = await following;
    if (stop?.kind === 'interrupted') this.extras.drop(thread.executionId);
    thread.cursor = Math.max(thread.cursor, lastSeq);
    if (stop?.kind === 'interrupted') this.threads.setInterrupts(thread, stop.interrupts);
    else if (stop?.kind === 'ended') this.threads.setInterrupts(thread, []);
    // The client may run the thread again as soon as it is told (an interrupt to resume, a retry after
    // SERVER_RESTARTING), on any replica, even if this one dies at once: the thread is stored and let
    // go first.
    await hold.release();
    if (stop?.kind === 'interrupted') renderer.interrupted(stop.interrupts);
    if (handedOver) renderer.handedOver();
    writer.end();
  }

  private reason(plan: Plan): string {
    return plan.kind === 'reject' ? plan.rule.message : 'The thread’s execution is no longer available';
  }

  /**
   * What the run does, and the thread's execution as this replica sees it: its own, or one another
   * replica runs, followed through the shared event log (the record read as `identity`, so its owner
   * is checked).
   */
  private async plan(
    identity: Identity,
    thread: AguiThread,
    input: RunInput,
  ): Promise<{ plan: Plan; execution?: Execution }> {
    if (!thread.executionId) {
      if (input.resume?.length) return { plan: planRun(thread, input, undefined, { live: false }) };
      return { plan: { kind: 'start' } };
    }
    let record: ExecutionRecord | undefined;
    try {
      record = await this.executions.record(identity, thread.executionId);
    } catch {
      record = undefined;
    }
    const execution =
      this.executions.find(thread.executionId) ?? (record && (await this.executions.attach(record)));
    const plan = planRun(thread, input, record, {
      live: execution !== undefined,
      endSeq: execution?.events.terminal?.seq,
      resumeToFollow: identity.userId === null,
    });
    return { plan, execution };
  }

  /** Hands each answer to the waiting execution, as any face does. */
  private async answer(
    identity: Identity,
    execution: Execution,
    answers: { pending: PendingInterrupt; entry: ResumeEntry }[],
  ): Promise<void> {
    for (const { pending, entry } of answers) {
      try {
        if (pending.kind === 'oauth') {
          if (entry.status === 'cancelled') await execution.cancel('OAuth consent cancelled');
          continue;
        }
        if (entry.status === 'cancelled') {
          if (pending.prompt?.allow_cancel) {
            await this.executions.respond(identity, execution.id, pending.interrupt.id, { type: 'cancel' });
          } else {
            await execution.cancel(`interrupt ${pending.interrupt.id} cancelled`);
          }
          continue;
        }
        const answer = answerFor(pending, entry.payload);
        await this.executions.respond(identity, execution.id, pending.interrupt.id, answer);
      } catch (err) {
        // Answered from another face in the meantime: the first answer won, the run shows what it did.
        if (err instanceof AppError && err.code === ErrorCode.AlreadyResolved) continue;
        this.logger.warn(`Resume of ${pending.interrupt.id} failed: ${(err as Error).message}`);
        await execution.cancel('resume failed');
      }
    }
  }

  /** Renders the execution's events after `afterSeq` until the run stops or the client leaves. */
  private follow(
    execution: Execution,
    renderer: RunRenderer,
    writer: SseWriter,
    afterSeq: number,
  ): Following {
    return new Promise((resolve) => {
      let lastSeq = afterSeq;
      let done = false;
      const subscription: { stop?: () => void } = {};
      const finish = (stop?: Stop, handedOver?: boolean) => {
        if (done) return;
        done = true;
        stopWatchingHandover?.();
        queueMicrotask(() => subscription.stop?.());
        resolve({ stop, lastSeq, handedOver });
      };
      // This replica stops and another goes on with the execution: the client runs the thread again
      // (told once the thread is let go).
      const stopWatchingHandover = execution.onHandover?.(() => {
        if (done) return;
        finish(undefined, true);
      });
      writer.onDisconnect(() => {
        if (done) return;
        // A client that leaves (or stops the run) cancels it (AG-UI: stop means cancel).
        renderer.cancelled();
        void execution.cancel('client disconnected');
        finish({ kind: 'ended' });
      });
      subscription.stop = execution.events.subscribe((event) => {
        if (done) return;
        lastSeq = event.seq;
        const stop = renderer.render(event);
        if (stop) finish(stop);
      }, afterSeq);
      if (done) subscription.stop();
    });
  }

  private renderer(input: RunInput, executionId: string, writer: SseWriter): RunRenderer {
    const emit: Emit = (event) => writer.data({ ...event, timestamp: event.timestamp ?? Date.now() });
    return new RunRenderer(
      {
        threadId: input.threadId,
        runId: input.runId,
        executionId,
        v1: input.protocolVersion !== undefined,
        messages: input.messages.filter((m) => m.role !== 'activity') as Message[],
        state: input.state,
      },
      emit,
    );
  }

  private workflowInput(input: RunInput): unknown {
    const workflow = this.config.workflow;
    const request = chatRequestOf(input.messages, workflow.images !== undefined);
    checkAttachments(request.messages, workflow, ['body', 'messages']);
    return workflow.fromChat(request);
  }
}
