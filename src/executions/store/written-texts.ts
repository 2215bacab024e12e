/** Texts kept at most; past it the oldest goes (a text is only ever a starting point). */
const MAX_TEXTS = 10_000;

/**
 * The text of each record as this replica last wrote it: where its next write of that record starts
 * (one round trip, the compare-and-set, instead of a read first). Never served to anyone: a text another
 * replica's change made out of date only costs that write a second try. So that it rarely does, a text
 * is replaced by the one another replica writes as soon as its change is heard of (its notice carries
 * it), or forgotten.
 */
export class WrittenTexts {
  private readonly texts = new Map<string, string>();

  get(id: string): string | undefined {
    return this.texts.get(id);
  }

  /** `id` was written as `text` (committed). */
  set(id: string, text: string): void {
    this.texts.delete(id);
    if (this.texts.size >= MAX_TEXTS) this.texts.delete(this.texts.keys().next().value!);
    this.texts.set(id, text);
  }

  /**
   * Another replica writes `id` (as `text`, when its notice carried it): that text is where this one's
   * next write starts, if it writes the record at all (it kept a text of it); else it is forgotten.
   */
  changedElsewhere(id: string, text: string | undefined): void {
    if (text !== undefined && this.texts.has(id)) this.texts.set(id, text);
    else this.texts.delete(id);
  }

  /** These records changed elsewhere, or are gone. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.texts.delete(id);
  }
}
