import { Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { MemoryAguiThreads } from './agui-threads';
import { ThreadHold } from './thread-hold';

const logger = new Logger('test');

describe('ThreadHold', () => {
  it('lets its thread go once: releasing again does not take the claim of the run that holds it next', async () => {
    const threads = new MemoryAguiThreads(10, 60_000);
    const first = (await ThreadHold.take(threads, 't', 'alice', logger)) as ThreadHold;
    await first.release();
    const next = await ThreadHold.take(threads, 't', 'alice', logger);
    expect(next).not.toBe(false);
    await first.release();
    expect(await ThreadHold.take(threads, 't', 'alice', logger)).toBe(false);
  });

  it('gives another identity a thread of its own for the same id; resuming one it does not have is not found', async () => {
    const threads = new MemoryAguiThreads(10, 60_000);
    const alice = (await ThreadHold.take(threads, 't', 'alice', logger)) as ThreadHold;
    const bob = await ThreadHold.take(threads, 't', 'bob', logger);
    expect(bob).not.toBe(false);
    expect((bob as ThreadHold).thread).not.toBe(alice.thread);
    const resumed = ThreadHold.take(threads, 't', 'carol', logger, true);
    await expect(resumed).rejects.toBeInstanceOf(AppError);
    await expect(resumed).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });
});
