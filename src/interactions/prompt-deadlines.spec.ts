import { PromptDeadlines, type DeadlineWaiter } from './prompt-deadlines';

/** A waiter that notes, in `expired`, the name of each one told its deadline passed. */
function aWaiter(name: string, expired: string[]): DeadlineWaiter {
  return { deadlineSlot: -1, expired: () => expired.push(name) };
}

describe('PromptDeadlines', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('tells each waiter once its own deadline has passed, earliest first, whatever the order they came in', () => {
    const deadlines = new PromptDeadlines();
    const expired: string[] = [];
    const now = Date.now();
    const offsets = [50, 10, 40, 30, 20, 60, 5];
    for (const ms of offsets) deadlines.add(aWaiter(`${ms}`, expired), now + ms);
    jest.advanceTimersByTime(25);
    expect(expired).toEqual(['5', '10', '20']);
    jest.advanceTimersByTime(100);
    expect(expired).toEqual(['5', '10', '20', '30', '40', '50', '60']);
    expect(deadlines.size).toBe(0);
  });

  it('a waiter removed before its deadline is never told, and the others still are', () => {
    const deadlines = new PromptDeadlines();
    const expired: string[] = [];
    const now = Date.now();
    const waiters = Array.from({ length: 20 }, (_, i) => aWaiter(`w${i}`, expired));
    waiters.forEach((w, i) => deadlines.add(w, now + 100 - i * 3));
    for (const i of [0, 7, 19, 3, 12]) deadlines.remove(waiters[i]);
    deadlines.remove(waiters[7]);
    jest.advanceTimersByTime(200);
    const left = waiters.map((_, i) => i).filter((i) => ![0, 7, 19, 3, 12].includes(i));
    expect(expired).toEqual(left.reverse().map((i) => `w${i}`));
  });

  it('keeps no timer once nothing waits', () => {
    const deadlines = new PromptDeadlines();
    const waiter = aWaiter('a', []);
    deadlines.add(waiter, Date.now() + 1_000);
    expect(jest.getTimerCount()).toBe(1);
    deadlines.remove(waiter);
    expect(jest.getTimerCount()).toBe(0);
  });
});
