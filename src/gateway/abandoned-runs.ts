import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { RemoteRuns } from './remote-runs';
import type { WsRun } from './ws-run';

/**
 * Runs whose socket closed while a reconnecting client could still take them over: cancelled if
 * nobody does, on any replica, within the execution TTL.
 */
@Injectable()
export class AbandonedRuns implements OnApplicationShutdown {
  private readonly timers = new Map<WsRun, NodeJS.Timeout>();

  constructor(
    private readonly config: ServerConfig,
    private readonly remote: RemoteRuns,
  ) {}

  onApplicationShutdown(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  leave(run: WsRun): void {
    const detachedAt = Date.now();
    // What the closed connection was shown: a takeover elsewhere sends only what comes after it.
    this.remote.progress(run, { delivered: run.shown });
    const timer = setTimeout(
      () => void this.expire(run, detachedAt),
      this.config.general.execution_ttl_seconds * 1000,
    );
    timer.unref();
    this.timers.set(run, timer);
  }

  /** The run was taken over (or is gone): it is no longer abandoned here. */
  keep(run: WsRun): void {
    const timer = this.timers.get(run);
    if (timer) clearTimeout(timer);
    this.timers.delete(run);
  }

  private async expire(run: WsRun, detachedAt: number): Promise<void> {
    this.timers.delete(run);
    if (run.isEnded || (await this.remote.takenOverSince(run, detachedAt))) return;
    await run.execution.cancel('no client reconnected');
  }
}
