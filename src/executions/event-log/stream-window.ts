/** The entries a writer has in its Redis Stream, oldest first, with the bytes each takes there. */
export class StreamWindow {
  private seqs: number[] = [];
  private sizes: number[] = [];
  private head = 0;
  private total = 0;
  /** The prompts among the entries (their JSON by seq): written aside only when trimmed. */
  private readonly pins = new Map<number, string>();

  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.seqs.length - this.head;
  }

  /** An entry; `pin`: its JSON, for a prompt that must outlive a trim (see `dropUntil`). */
  push(seq: number, bytes: number, pin?: string): void {
    this.seqs.push(seq);
    this.sizes.push(bytes);
    this.total += bytes;
    if (pin !== undefined) this.pins.set(seq, pin);
  }

  /**
   * Forgets the oldest entries, never the newest (a log's end stays), until at most `bytes` and
   * `count` are left; the seq of the oldest entry left, or undefined when none was forgotten. Each
   * prompt among those forgotten is handed to `pinned`, to be kept aside.
   */
  dropUntil(bytes: number, count: number, pinned?: (seq: number, json: string) => void): number | undefined {
    const start = this.head;
    while ((this.total > bytes || this.count > count) && this.count > 1) {
      const seq = this.seqs[this.head];
      const pin = this.pins.get(seq);
      if (pin !== undefined) {
        this.pins.delete(seq);
        pinned?.(seq, pin);
      }
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
    this.pins.clear();
  }
}
