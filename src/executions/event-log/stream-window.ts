/** The entries a writer has in its Redis Stream, oldest first, with the bytes each takes there. */
export class StreamWindow {
  private seqs: number[] = [];
  private sizes: number[] = [];
  private head = 0;
  private total = 0;

  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.seqs.length - this.head;
  }

  push(seq: number, bytes: number): void {
    this.seqs.push(seq);
    this.sizes.push(bytes);
    this.total += bytes;
  }

  /**
   * Forgets the oldest entries, never the newest (a log's end stays), until at most `bytes` and
   * `count` are left; the seq of the oldest entry left, or undefined when none was forgotten.
   */
  dropUntil(bytes: number, count: number): number | undefined {
    const start = this.head;
    while ((this.total > bytes || this.count > count) && this.count > 1) {
      this.total -= this.sizes[this.head++];
    }
    if (this.head === start) return undefined;
    const oldest = this.seqs[this.head];
    if (this.head > 1024 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return oldest;
  }

  clear(): void {
    this.seqs = [];
    this.sizes = [];
    this.head = 0;
    this.total = 0;
  }
}
