import { Injectable } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';

export interface UserActivity {
  userId: string;
  createdAt: number;
  lastActivity: number;
  activeRequests: number;
  totalRequests: number;
  totalLatencyMs: number;
  errorCount: number;
}

/**
 * Who used the server and how it went for them, for `/monitor/users`. Identified users only, and a
 * bounded number of them: users idle for `monitor_user_idle_seconds` are forgotten, and past
 * `monitor_max_users` the least recently active idle ones go first (callers can mint ids at will).
 */
@Injectable()
export class UserActivityService {
  /** In order of last activity, least recent first (a touched user is moved to the end). */
  private readonly users = new Map<string, UserActivity>();
  private readonly maxUsers: number;
  private readonly idleMs: number;
  /** Bumped by every change, so a publisher knows when there is something new to share. */
  version = 0;

  constructor(config: ServerConfig) {
    this.maxUsers = config.general.monitor_max_users;
    this.idleMs = config.general.monitor_user_idle_seconds * 1000;
  }

  begin(userId: string, now = Date.now()): void {
    let user = this.users.get(userId);
    if (user) this.users.delete(userId);
    else {
      user = {
        userId,
        createdAt: now,
        lastActivity: now,
        activeRequests: 0,
        totalRequests: 0,
        totalLatencyMs: 0,
        errorCount: 0,
      };
    }
    this.users.set(userId, user);
    this.version++;
    user.activeRequests++;
    user.totalRequests++;
    user.lastActivity = now;
    this.evict(now);
  }

  /**
   * A request ended (a stream counts until it ends); `failed` for error statuses. A request that
   * matched no route is taken back: probing unknown paths leaves no record.
   */
  end(userId: string, latencyMs: number, failed: boolean, now = Date.now(), matched = true): void {
    const user = this.users.get(userId);
    if (!user) return;
    this.version++;
    user.activeRequests = Math.max(0, user.activeRequests - 1);
    if (!matched) {
      user.totalRequests--;
      if (user.totalRequests <= 0 && user.activeRequests === 0) this.users.delete(userId);
      return;
    }
    user.totalLatencyMs += latencyMs;
    if (failed) user.errorCount++;
    user.lastActivity = now;
  }

  list(userId?: string, now = Date.now()): UserActivity[] {
    this.evict(now);
    if (userId !== undefined) {
      const user = this.users.get(userId);
      return user ? [user] : [];
    }
    return [...this.users.values()];
  }

  get size(): number {
    return this.users.size;
  }

  private evict(now: number): void {
    for (const [id, user] of this.users) {
      const idle = user.activeRequests === 0 && now - user.lastActivity >= this.idleMs;
      const over = this.users.size > this.maxUsers;
      if (!idle && !over) return;
      // A user with a request under way stays listed even past the cap; the next idle one goes.
      if (user.activeRequests === 0) this.users.delete(id);
      else if (!over) return;
    }
  }
}
