import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { JobStore } from './job.store';

/**
 * Every `general.async.expiry_sweep_seconds`, finished jobs past `expires_at` lose their output; the
 * row and its last status stay (as in NeMo Agent Toolkit). Any number of servers may sweep.
 */
@Injectable()
export class JobExpiry implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: JobStore,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.general.async.expiry_sweep_seconds * 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(now = new Date()): Promise<number> {
    try {
      return await this.store.expire(now);
    } catch (err) {
      this.logger.warn(`Expiry sweep failed: ${(err as Error).message}`);
      return 0;
    }
  }
}
