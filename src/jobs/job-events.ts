import { EventEmitter } from 'node:events';
import { Injectable } from '@nestjs/common';

/**
 * In-process news of jobs that changed status, so a request holding a `sync_timeout` wakes at once.
 * Jobs run by another process are not announced here: waiters also poll the store.
 */
@Injectable()
export class JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  changed(id: string): void {
    this.emitter.emit(id);
  }

  /** Resolves at the next change of job `id`, or after `ms`; never rejects. */
  next(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(id, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.on(id, done);
    });
  }
}
