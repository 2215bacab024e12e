import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppError, ErrorCode } from '../../core/errors/app-error';
import { ExecutionFinished, ExecutionHandedOver } from '../../core/events/execution-events';
import type { Identity } from '../../core/identity/identity';
import { durationSeconds } from '../../core/validation/duration';
import { ServerConfig } from '../../config/server-config';
import type { BuiltFunction } from '../../runtime/function-type';

interface Instance {
  workflow: BuiltFunction;
  createdAt: number;
  lastUsed: number;
  /** Runs using it right now: an instance in use is never dropped. */
  inUse: number;
}

/**
 * The workflow each caller runs. Usually one shared instance; with `per_user: true` one per user,
 * built on that user's first request, kept between requests (so it can hold per-user state) and
 * dropped after `per_user_workflow_timeout` idle.
 */
@Injectable()
export class WorkflowInstances implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(WorkflowInstances.name);
  private readonly instances = new Map<string, Instance>();
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly config: ServerConfig) {}

  get perUser(): boolean {
    return this.config.app.perUser;
  }

  onModuleInit(): void {
    if (!this.perUser) return;
    const every = durationSeconds(this.config.general.per_user_workflow_cleanup_interval) ?? 300;
    this.sweeper = setInterval(() => this.sweep(), every * 1000);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** The caller's instance, marked in use until `release`. */
  acquire(identity: Identity): BuiltFunction {
    if (!this.perUser) return this.config.workflow;
    if (identity.userId === null) {
      throw new AppError(
        ErrorCode.Unauthorized,
        'This workflow keeps state per user, so it needs to know who you are: send a nat-session cookie, a token or an API key.',
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    const now = Date.now();
    let instance = this.instances.get(identity.userId);
    if (!instance) {
      instance = { workflow: this.config.app.buildWorkflow(), createdAt: now, lastUsed: now, inUse: 0 };
      this.instances.set(identity.userId, instance);
    }
    instance.inUse++;
    instance.lastUsed = now;
    return instance.workflow;
  }

  /** A run that held the caller's instance ended here (or went to another replica). */
  @OnEvent(ExecutionFinished.event)
  @OnEvent(ExecutionHandedOver.event)
  runEnded(event: ExecutionFinished | ExecutionHandedOver): void {
    if (event.holder) this.release(event.holder);
  }

  release(identity: Identity): void {
    if (!this.perUser || identity.userId === null) return;
    const instance = this.instances.get(identity.userId);
    if (!instance) return;
    instance.inUse = Math.max(0, instance.inUse - 1);
    instance.lastUsed = Date.now();
  }

  /** Drops instances idle for longer than the timeout; returns the users whose instance went. */
  sweep(now = Date.now()): string[] {
    const idleMs = (durationSeconds(this.config.general.per_user_workflow_timeout) ?? 1800) * 1000;
    const dropped: string[] = [];
    for (const [userId, instance] of this.instances) {
      if (instance.inUse === 0 && now - instance.lastUsed >= idleMs) {
        this.instances.delete(userId);
        dropped.push(userId);
      }
    }
    if (dropped.length) this.logger.log(`Dropped ${dropped.length} idle per-user workflow instance(s)`);
    return dropped;
  }

  /** How many per-user functions a user holds (for /monitor/users). */
  functionsOf(userId: string): number {
    return this.instances.has(userId) ? 1 : 0;
  }

  get size(): number {
    return this.instances.size;
  }
}
