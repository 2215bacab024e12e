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

  it("makes another identity's thread not found", async () => {
    const threads = new MemoryAguiThreads(10, 60_000);
    await ((await ThreadHold.take(threads, 't', 'alice', logger)) as ThreadHold).release();
    const taken = ThreadHold.take(threads, 't', 'bob', logger);
    await expect(taken).rejects.toBeInstanceOf(AppError);
    await expect(taken).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });
});
