/**
 * Says whether a key is new, remembering at most `max` of them: a warning about a refused origin or
 * host is logged the first time it is seen, not once per request, and a caller who sends a new value
 * every time fills the set once and is then ignored instead of growing it (or the log) for good.
 */
export class FirstSeen {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 256) {}

  first(key: string): boolean {
    if (this.seen.has(key) || this.seen.size >= this.max) return false;
    this.seen.add(key);
    return true;
  }
}
