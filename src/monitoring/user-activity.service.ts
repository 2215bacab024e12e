import { Injectable } from '@nestjs/common';

export interface UserActivity {
  userId: string;
  createdAt: number;
  lastActivity: number;
  activeRequests: number;
  totalRequests: number;
  totalLatencyMs: number;
  errorCount: number;
}

/** Who used the server and how it went for them, for `/monitor/users`. Identified users only. */
@Injectable()
export class UserActivityService {
  private readonly users = new Map<string, UserActivity>();

  begin(userId: string, now = Date.now()): void {
    let user = this.users.get(userId);
    if (!user) {
      user = {
        userId,
        createdAt: now,
        lastActivity: now,
        activeRequests: 0,
        totalRequests: 0,
        totalLatencyMs: 0,
        errorCount: 0,
      };
      this.users.set(userId, user);
    }
    user.activeRequests++;
    user.totalRequests++;
    user.lastActivity = now;
  }

  /** A request ended (a stream counts until it ends); `failed` for error statuses. */
  end(userId: string, latencyMs: number, failed: boolean, now = Date.now()): void {
    const user = this.users.get(userId);
    if (!user) return;
    user.activeRequests = Math.max(0, user.activeRequests - 1);
    user.totalLatencyMs += latencyMs;
    if (failed) user.errorCount++;
    user.lastActivity = now;
  }

  list(userId?: string): UserActivity[] {
    if (userId !== undefined) {
      const user = this.users.get(userId);
      return user ? [user] : [];
    }
    return [...this.users.values()];
  }
}
