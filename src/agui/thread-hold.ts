import type { Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { ThreadLimitError, type AguiThread, type AguiThreads } from './agui-threads';

const threadNotFound = (id: string) => new AppError(ErrorCode.NotFound, `Thread ${id} not found`);

/**
 * A run's hold on its thread: the caller's own (another identity's thread of the same id is another
 * thread), kept while the run streams, and let go once.
 */
export class ThreadHold {
  private readonly renewal?: NodeJS.Timeout;
  private released?: Promise<void>;

  private constructor(
    private readonly threads: AguiThreads,
    readonly thread: AguiThread,
    logger: Logger,
  ) {
    // A shared claim lapses unless renewed, so a replica that dies mid-run does not hold the thread.
    const every = threads.renewEveryMs;
    if (every) {
      this.renewal = setInterval(() => {
        threads.renew(thread).catch((err: Error) => logger.warn(`Renewing a thread: ${err.message}`));
      }, every).unref();
    }
  }

  /**
   * Claims `owner`'s thread `id`; false when a run is already streaming on it. A run that resumes
   * needs the thread to exist: resuming one the caller does not have is not found, whoever else has
   * that id.
   */
  static async take(
    threads: AguiThreads,
    id: string,
    owner: string,
    logger: Logger,
    resuming = false,
  ): Promise<ThreadHold | false> {
    if (resuming && !(await threads.get(id, owner))) throw threadNotFound(id);
    let thread: AguiThread | false;
    try {
      thread = await threads.claim(id, owner);
    } catch (err) {
      if (err instanceof ThreadLimitError) throw new AppError(ErrorCode.TooManyWaiting, err.message);
      throw err;
    }
    return thread && new ThreadHold(threads, thread, logger);
  }

  /**
   * Stores the thread as the run left it and lets it go. Once only: after it, another run may hold
   * the thread, and a second release would take that run's claim away.
   */
  release(): Promise<void> {
    if (this.renewal) clearInterval(this.renewal);
    return (this.released ??= this.threads.release(this.thread));
  }
}
