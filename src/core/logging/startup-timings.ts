import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * The order and cost of start-up work, logged at debug (`LOG_LEVEL=debug interlude serve`): each step
 * with its own time and the time since the process started, so what a container pays for is visible.
 */
class StartupTimings {
  private logger?: Logger;
  private last = 0;

  use(logger: Logger): void {
    this.logger = logger;
  }

  step(name: string): void {
    const logger = this.logger;
    if (!logger?.isLevelEnabled('debug')) return;
    const now = performance.now();
    const ms = Math.round((now - this.last) * 10) / 10;
    logger.debug({ step: name, ms, sinceStart: Math.round(now) }, `start-up: ${name} (${ms} ms)`);
    this.last = now;
  }
}

export const startupTimings = new StartupTimings();
