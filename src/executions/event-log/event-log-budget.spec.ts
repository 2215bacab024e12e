import { EventLogBudget, type SheddableLog } from './event-log-budget';

/** A log that keeps what it is charged and can give none of it up (say, only its terminal event). */
function stubborn(counter: { sheds: number }): SheddableLog {
  return {
    shed: () => {
      counter.sheds++;
      return 0;
    },
    keptBytes: 0,
  };
}

describe('EventLogBudget', () => {
  it('a full budget of logs with nothing left to give is not scanned again on every event', () => {
    const counter = { sheds: 0 };
    const budget = new EventLogBudget(1000);
    for (let i = 0; i < 5000; i++) budget.charge(stubborn(counter), 1);
    const live = stubborn(counter);
    counter.sheds = 0;
    for (let i = 0; i < 1000; i++) budget.charge(live, 1);
    // Each stubborn log is asked once, then only the log that was charged again: not 1,000 × 5,000.
    expect(counter.sheds).toBeLessThan(2 * 5000);
  });

  it('past the bound, the oldest logs shed below it, and a released log frees all it held', () => {
    const budget = new EventLogBudget(1000);
    const kept = new Map<SheddableLog, number>();
    const log = (): SheddableLog => {
      const self: SheddableLog = {
        shed: (bytes) => {
          const freed = Math.min(bytes, kept.get(self) ?? 0);
          kept.set(self, (kept.get(self) ?? 0) - freed);
          budget.credit(self, freed);
          return freed;
        },
        get keptBytes() {
          return kept.get(self) ?? 0;
        },
      };
      return self;
    };
    const old = log();
    const young = log();
    kept.set(old, 800);
    budget.charge(old, 800);
    kept.set(young, 400);
    budget.charge(young, 400);
    expect(budget.usedBytes).toBeLessThanOrEqual(900);
    expect(kept.get(old)).toBeLessThan(800);
    expect(kept.get(young)).toBe(400);
    budget.release(old);
    budget.release(young);
    expect(budget.usedBytes).toBe(0);
  });
});
