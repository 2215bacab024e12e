import { randomUUID } from 'node:crypto';
import { EventType, type BaseEvent, type Message } from '@ag-ui/core';
import type { ExecutionEvent } from '../runtime/execution-event';
import type { IntermediateStep } from '../runtime/intermediate-step';
import { answerText, chunkText } from '../runtime/output-text';
import type { Prompt } from '../runtime/prompts';
import { oauthInterrupt, promptInterrupt, type PendingInterrupt } from './interrupts';

export type Emit = (event: BaseEvent & Record<string, unknown>) => void;

/**
 * How a run stopped rendering: the execution ended (its terminal event shown), or paused for a person.
 * An interrupt is not shown yet: the caller records it first, then shows it with `interrupted()`.
 */
export type Stop = { kind: 'ended' } | { kind: 'interrupted'; interrupts: PendingInterrupt[] };

export interface RunContext {
  threadId: string;
  runId: string;
  executionId: string;
  /** A 1.0 client (`protocolVersion` in the input): cancels end with the cancelled outcome. */
  v1: boolean;
  /** The input's messages and state, for the snapshots at an interrupt. */
  messages: Message[];
  state: unknown;
}

const open = (step: IntermediateStep) => step.payload.event_type.endsWith('_START');

/**
 * Renders one AG-UI run from the execution's events: text as TEXT_MESSAGE_*, tool steps as TOOL_CALL_*
 * (the result as TOOL_CALL_RESULT, also when the call was emitted by an earlier run of the thread),
 * other steps as STEP_* pairs. Everything it opened is closed before the terminal event.
 */
export class RunRenderer {
  private text?: { id: string; content: string };
  private readonly steps = new Map<string, string>();
  private readonly stepNames = new Set<string>();
  /** Tool calls started and not yet answered, innermost last. */
  private readonly tools: { id: string; name: string; args: unknown }[] = [];
  private readonly produced: Message[] = [];
  private streamed = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly emit: Emit,
  ) {}

  started(): void {
    this.emit({
      type: EventType.RUN_STARTED,
      threadId: this.ctx.threadId,
      runId: this.ctx.runId,
      protocolVersion: '1.0',
      timestamp: Date.now(),
    });
  }

  /** Renders one event; a Stop once the run is over. */
  render(event: ExecutionEvent): Stop | undefined {
    switch (event.kind) {
      case 'output': {
        const delta = chunkText(event.value);
        if (delta !== '') this.textDelta(delta);
        this.streamed = true;
        return undefined;
      }
      case 'step':
        this.step(event.step);
        return undefined;
      case 'interaction_required': {
        const prompt = event.prompt as Prompt;
        if (prompt.input_type === 'notification') {
          this.closeText();
          this.emit({ type: EventType.CUSTOM, name: 'interlude:notification', value: prompt });
          return undefined;
        }
        const tool = this.tools.at(-1);
        const pending = promptInterrupt(
          this.ctx.executionId,
          event.interactionId,
          prompt,
          tool && { toolCallId: tool.id, name: tool.name, args: tool.args },
        );
        return { kind: 'interrupted', interrupts: [pending] };
      }
      case 'oauth_required': {
        const pending = oauthInterrupt(this.ctx.executionId, event.state, event.authUrl, event.provider);
        return { kind: 'interrupted', interrupts: [pending] };
      }
      case 'completed':
        if (!event.streamed && !this.streamed) {
          const text = answerText(event.result);
          if (text !== '') this.textDelta(text);
        }
        this.closeAll();
        this.emit({
          type: EventType.RUN_FINISHED,
          threadId: this.ctx.threadId,
          runId: this.ctx.runId,
          outcome: { type: 'success' },
        });
        return { kind: 'ended' };
      case 'failed':
        this.closeAll();
        this.emit({ type: EventType.RUN_ERROR, message: event.error.message, code: event.error.type });
        return { kind: 'ended' };
      case 'cancelled':
        this.cancelled();
        return { kind: 'ended' };
      default:
        return undefined;
    }
  }

  /** The run was stopped (client gone, server shutting down): the cancelled outcome or RUN_ERROR. */
  cancelled(): void {
    this.closeAll();
    if (this.ctx.v1) {
      this.emit({
        type: EventType.RUN_FINISHED,
        threadId: this.ctx.threadId,
        runId: this.ctx.runId,
        outcome: { type: 'cancelled' },
      });
    } else {
      this.emit({ type: EventType.RUN_ERROR, message: 'The run was cancelled', code: 'cancelled' });
    }
  }

  /** A contract-rule failure (spec "Error handling"): the interrupts stay open. */
  error(code: string, message: string): void {
    this.closeAll();
    this.emit({ type: EventType.RUN_ERROR, message, code });
  }

  /**
   * The run is cut short because this replica stops; the execution goes on on another. RUN_ERROR
   * resolves `runAgent()` and leaves the client's pending interrupts as they were, so the client's
   * retry is the same run again on any replica: the same `resume` (applied once; the run shows the
   * resumed execution from that point) or, for a run that carried none, no `resume` (it shows what
   * comes after what this run showed).
   */
  handedOver(): void {
    this.error(
      'SERVER_RESTARTING',
      'This server is restarting and the run goes on on another replica: send the same run again to follow it',
    );
  }

  /** The interrupt boundary: state and messages first, then the interrupt outcome. */
  interrupted(interrupts: PendingInterrupt[]): void {
    this.closeAll();
    this.emit({ type: EventType.STATE_SNAPSHOT, snapshot: this.ctx.state ?? {} });
    this.emit({ type: EventType.MESSAGES_SNAPSHOT, messages: [...this.ctx.messages, ...this.produced] });
    this.emit({
      type: EventType.RUN_FINISHED,
      threadId: this.ctx.threadId,
      runId: this.ctx.runId,
      outcome: { type: 'interrupt', interrupts: interrupts.map((p) => p.interrupt) },
    });
  }

  private textDelta(delta: string): void {
    if (!this.text) {
      this.text = { id: randomUUID(), content: '' };
      this.emit({ type: EventType.TEXT_MESSAGE_START, messageId: this.text.id, role: 'assistant' });
    }
    this.text.content += delta;
    this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.text.id, delta });
  }

  private closeText(): void {
    if (!this.text) return;
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.text.id });
    this.produced.push({ id: this.text.id, role: 'assistant', content: this.text.content });
    this.text = undefined;
  }

  private step(step: IntermediateStep): void {
    const { event_type: type, UUID: id, name, data } = step.payload;
    if (type === 'LLM_NEW_TOKEN' || type === 'SPAN_CHUNK') return;
    this.closeText();
    if (type === 'TOOL_START') {
      const toolName = name ?? 'tool';
      this.tools.push({ id, name: toolName, args: data?.input });
      this.emit({ type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: toolName });
      this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: JSON.stringify(data?.input ?? {}) });
      this.emit({ type: EventType.TOOL_CALL_END, toolCallId: id });
      this.produced.push({
        id: randomUUID(),
        role: 'assistant',
        toolCalls: [
          {
            id,
            type: 'function',
            function: { name: toolName, arguments: JSON.stringify(data?.input ?? {}) },
          },
        ],
      });
      return;
    }
    if (type === 'TOOL_END') {
      const at = this.tools.findIndex((t) => t.id === id);
      if (at >= 0) this.tools.splice(at, 1);
      const output = data?.output;
      const content = typeof output === 'string' ? output : JSON.stringify(output ?? null);
      const messageId = randomUUID();
      this.emit({ type: EventType.TOOL_CALL_RESULT, messageId, toolCallId: id, content, role: 'tool' });
      this.produced.push({ id: messageId, role: 'tool', toolCallId: id, content });
      return;
    }
    if (open(step)) {
      let stepName = name ?? type;
      for (let n = 2; this.stepNames.has(stepName); n++) stepName = `${name ?? type} #${n}`;
      this.steps.set(id, stepName);
      this.stepNames.add(stepName);
      this.emit({ type: EventType.STEP_STARTED, stepName });
      return;
    }
    // An END whose START an earlier run of the thread already closed (at its interrupt) is not shown.
    const stepName = this.steps.get(id);
    if (stepName === undefined) return;
    this.steps.delete(id);
    this.stepNames.delete(stepName);
    this.emit({ type: EventType.STEP_FINISHED, stepName });
  }

  private closeAll(): void {
    this.closeText();
    for (const stepName of [...this.steps.values()].reverse()) {
      this.emit({ type: EventType.STEP_FINISHED, stepName });
    }
    this.steps.clear();
    this.stepNames.clear();
  }
}
