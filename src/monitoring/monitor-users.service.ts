import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ExecutionStore } from '../executions/store/execution.store';
import { WorkflowInstances } from '../executions/engine/workflow-instances';
import type { MonitorUserDto, MonitorUsersDto } from './dto/monitor-users.dto';
import { mergeActivity, PUBLISH_EVERY_MS, ReplicaActivity, type ReplicaUser } from './replica-activity';
import { UserActivityService } from './user-activity.service';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `/monitor/users` for the whole service: this replica's users merged with what the others publish,
 * and each user's executions waiting for a person counted in the shared store, so every replica
 * reports the same numbers.
 */
@Injectable()
export class MonitorUsersService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(MonitorUsersService.name);
  private timer?: NodeJS.Timeout;
  private published = -1;
  private publishedAt = 0;

  constructor(
    private readonly activity: UserActivityService,
    private readonly instances: WorkflowInstances,
    private readonly store: ExecutionStore,
    private readonly replicas: ReplicaActivity,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.publish(), PUBLISH_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.replicas.withdraw().catch(() => undefined);
  }

  async users(userId?: string): Promise<MonitorUsersDto> {
    let others: ReplicaUser[][] = [];
    try {
      others = await this.replicas.others();
    } catch (err) {
      this.logger.warn(`Other replicas' activity is unavailable: ${(err as Error).message}`);
    }
    const all = mergeActivity([this.local(), ...others]).filter(
      (u) => userId === undefined || u.userId === userId,
    );
    const users = await Promise.all(all.map((u) => this.render(u)));
    return { timestamp: new Date().toISOString(), total_active_users: users.length, users };
  }

  private local(): ReplicaUser[] {
    return this.activity.list().map((u) => ({ ...u, functions: this.instances.functionsOf(u.userId) }));
  }

  /** Publishes this replica's users when they changed (and now and then, so its snapshot stays). */
  private async publish(): Promise<void> {
    const now = Date.now();
    const version = this.activity.version;
    if (version === this.published && now - this.publishedAt < PUBLISH_EVERY_MS * 2) return;
    try {
      await this.replicas.publish(this.local());
      this.published = version;
      this.publishedAt = now;
    } catch (err) {
      this.logger.warn(`Could not share this replica's user activity: ${(err as Error).message}`);
    }
  }

  private async render(u: ReplicaUser): Promise<MonitorUserDto> {
    const finished = u.totalRequests - u.activeRequests;
    return {
      user_id: u.userId,
      session: {
        created_at: iso(u.createdAt),
        last_activity: iso(u.lastActivity),
        ref_count: u.activeRequests,
        is_active: u.activeRequests > 0,
      },
      requests: {
        total_requests: u.totalRequests,
        active_requests: u.activeRequests,
        avg_latency_ms: finished > 0 ? Math.round((u.totalLatencyMs / finished) * 10) / 10 : 0,
        error_count: u.errorCount,
      },
      memory: {
        per_user_functions_count: u.functions,
        per_user_function_groups_count: 0,
        exit_stack_size: 0,
      },
      executions: { waiting: await this.store.countWaiting(u.userId) },
    };
  }
}
