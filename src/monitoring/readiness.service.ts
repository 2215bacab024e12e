import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { sql } from 'kysely';
import { BackingRedis } from '../redis/backing-redis';
import { Database } from '../db/database';
import { ExecutionStore } from '../executions/store/execution.store';

export type ReadinessCheck = () => Promise<void>;

/**
 * What `/health/ready` checks: the execution store (memory, or the shared PostgreSQL records), the
 * database, Redis when the executions use it, and whatever other modules register. Once the server has
 * begun to stop (SIGTERM), it is not ready, whatever the checks say.
 */
@Injectable()
export class ReadinessService implements OnModuleDestroy {
  private readonly checks = new Map<string, ReadinessCheck>();
  private shuttingDown = false;

  constructor(store: ExecutionStore, database: Database, redis: BackingRedis) {
    this.register('executions', async () => {
      await store.countWaiting();
    });
    this.register('database', async () => {
      await sql`select 1`.execute(database.db);
    });
    if (redis.configured) {
      this.register('redis', async () => {
        const pong = await redis.client.ping();
        if (pong !== 'PONG') throw new Error(`PING answered ${String(pong)}`);
      });
    }
  }

  /**
   * The first shutdown hook (before executions are handed over and the port closes): from now on a
   * load balancer or Kubernetes must send requests elsewhere.
   */
  onModuleDestroy(): void {
    this.shuttingDown = true;
  }

  get stopping(): boolean {
    return this.shuttingDown;
  }

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Every check with its outcome; a check that takes longer than `timeoutMs` fails. */
  async run(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, string> }> {
    if (this.shuttingDown) return { ready: false, checks: { shutdown: 'in progress' } };
    const results = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          await Promise.race([check(), timeout]);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `failed: ${(err as Error).message}`] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
  }
}
