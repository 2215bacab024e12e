/**
 * The prompts that wait for the person, by the turn they belong to. While any does, the tab's title
 * says so, so a person working in another tab sees that the run waits for them.
 */
export class WaitingPrompts {
  private readonly open = new Map<string, string>();

  constructor(private readonly title: string) {
    document.title = title;
  }

  add(promptId: string, turnId: string): void {
    this.open.set(promptId, turnId);
    this.update();
  }

  remove(promptId: string): void {
    this.open.delete(promptId);
    this.update();
  }

  /** The turn ended (or the conversation closed): none of its prompts waits any more. */
  clear(turnId?: string): void {
    for (const [promptId, turn] of this.open)
      if (turnId === undefined || turn === turnId) this.open.delete(promptId);
    this.update();
  }

  has(turnId: string): boolean {
    for (const turn of this.open.values()) if (turn === turnId) return true;
    return false;
  }

  private update(): void {
    document.title = this.open.size > 0 ? `Waiting for you · ${this.title}` : this.title;
  }
}
