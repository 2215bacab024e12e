/**
 * The runs a replica claimed and has not resumed yet, resumed a bounded number at a time: a replica
 * that claims a large dead one's runs at once (every claim a new epoch, so the dead one's are fenced)
 * does not then ask its database for all their journals and records together, which would wait past
 * the pool's connection timeout and fail the later ones.
 */
export class ResumeQueue<T> {
  private readonly waiting: T[] = [];
  private running = 0;

  constructor(
    private readonly resume: (run: T) => Promise<void>,
    private readonly width = 50,
  ) {}

  get size(): number {
    return this.waiting.length + this.running;
  }

  push(runs: readonly T[]): void {
    this.waiting.push(...runs);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.width && this.waiting.length > 0) {
      const run = this.waiting.shift()!;
      this.running++;
      void this.resume(run).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }
}
