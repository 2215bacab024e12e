import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../../redis/backing-redis';
import { RedisChannel } from '../../redis/redis-channel';

export type CancelHandler = (executionId: string, reason: string) => void;

/**
 * Cancel requests for executions another process may run. Abstract class so it is also the DI token;
 * in one process there is no other, with a shared store every replica hears every request.
 */
export abstract class ExecutionCancels {
  /** Registers the handler of requests (it cancels the execution if this process runs it). */
  abstract listen(handler: CancelHandler): Promise<void>;
  /** Asks the other processes; false when there are none to ask. */
  abstract request(executionId: string, reason: string): Promise<boolean>;
}

export class LocalExecutionCancels extends ExecutionCancels {
  async listen(): Promise<void> {}

  async request(): Promise<boolean> {
    return false;
  }
}

const MAX_MESSAGE_CHARS = 64 * 1024;

/** Cancel requests on one Redis channel every replica subscribes to. */
export class RedisExecutionCancels extends ExecutionCancels {
  private readonly channel: RedisChannel;

  constructor(redis: BackingRedis) {
    super();
    this.channel = new RedisChannel(redis, {
      name: 'execution-cancels',
      maxChars: MAX_MESSAGE_CHARS,
      logger: new Logger('ExecutionCancels'),
      what: 'cancel request',
    });
  }

  listen(handler: CancelHandler): Promise<void> {
    return this.channel.subscribe((message) => {
      const { executionId, reason } = (message ?? {}) as { executionId?: unknown; reason?: unknown };
      if (typeof executionId === 'string' && typeof reason === 'string') handler(executionId, reason);
    });
  }

  async request(executionId: string, reason: string): Promise<boolean> {
    await this.channel.publish({ executionId, reason });
    return true;
  }
}
