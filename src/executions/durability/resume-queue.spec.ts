import { ResumeQueue } from './resume-queue';

describe('ResumeQueue', () => {
  it('resumes every run, at most `width` at a time, in the order they were claimed', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const queue = new ResumeQueue<number>(async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 1 + (n % 3)));
      running--;
      done.push(n);
    }, 5);
    queue.push(Array.from({ length: 30 }, (_, i) => i));
    queue.push([30, 31]);
    expect(queue.size).toBe(32);
    while (queue.size > 0) await new Promise((r) => setTimeout(r, 5));
    expect(most).toBe(5);
    expect([...done].sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });
});
