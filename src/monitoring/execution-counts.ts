import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { ExecutionFinished, ExecutionStarted } from '../core/events/execution-events';

/** Executions this process started and ended since start-up, counted from the engine's events (/metrics). */
@Injectable()
export class ExecutionCounts {
  started = 0;
  completed = 0;
  failed = 0;
  cancelled = 0;

  @OnEvent(ExecutionStarted.event)
  countStarted(): void {
    this.started++;
  }

  @OnEvent(ExecutionFinished.event)
  countFinished({ outcome }: ExecutionFinished): void {
    this[outcome.kind]++;
  }

  /** Started and not ended yet. */
  get running(): number {
    return this.started - this.completed - this.failed - this.cancelled;
  }
}
