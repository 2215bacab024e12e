import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ServerConfig } from '../../config/server-config';
import { Database } from '../../db/database';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Pruning is cheap but not free: once at start-up, then once an hour (per replica). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Rows deleted by one statement; the event loop runs between two (better-sqlite3 blocks it). */
const PRUNE_BATCH = 1000;

/**
 * Deletes `trace_owner` rows older than `general.feedback.trace_owner_retention_days` (0: kept forever).
 * A trace whose row is gone is unknown, and takes anyone's feedback as an anonymous trace does.
 */
@Injectable()
export class TraceOwnerRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('TraceOwnerRetention');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly database: Database,
    private readonly config: ServerConfig,
  ) {}

  private get retentionDays(): number {
    return this.config.general.feedback.trace_owner_retention_days;
  }

  onApplicationBootstrap(): void {
    if (this.retentionDays === 0) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Deletes the rows past retention at `now`, a bounded batch at a time; resolves to how many. */
  prune(now = Date.now()): Promise<number> {
    if (this.retentionDays === 0) return Promise.resolve(0);
    // One run at a time: an hourly run that finds the previous one still going has nothing to add.
    this.running ??= this.deleteBefore(new Date(now - this.retentionDays * DAY_MS).toISOString())
      .catch((err: Error) => {
        this.logger.error(`Could not prune trace owners: ${err.message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async deleteBefore(cutoff: string): Promise<number> {
    const db = this.database.db;
    let deleted = 0;
    while (!this.stopped) {
      const result = await db
        .deleteFrom('trace_owner')
        .where('observability_trace_id', 'in', (eb) =>
          eb
            .selectFrom('trace_owner')
            .select('observability_trace_id')
            .where('created_at', '<', cutoff)
            .limit(PRUNE_BATCH),
        )
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      deleted += count;
      if (count < PRUNE_BATCH) break;
      await yieldToEventLoop();
    }
    if (deleted > 0) this.logger.log(`Pruned ${deleted} trace owners older than ${cutoff}`);
    return deleted;
  }
}
