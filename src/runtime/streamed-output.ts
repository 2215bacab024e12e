/**
 * How often the step of a streaming model call is shown again. NAT's step adaptor re-sends the call's
 * whole input and all output so far for every token, so k chunks of an N-character answer cost k·N
 * characters on every streaming route (a model sending 100 KB in 10,000 pieces made 505 MB). Clients
 * (NAT's UI, ours) replace a step by its id and show the latest content, so fewer updates lose nothing:
 * LLM_END shows the whole output anyway.
 */
export const TOKEN_UPDATE_INTERVAL_MS = 100;

/** What a token update shows of the call's input (LLM_START and LLM_END show all of it). */
export const STREAMING_INPUT_PREVIEW_CHARS = 2_000;

/**
 * Token updates of one call repeat at most this many characters per character the model sent, plus
 * UPDATE_ALLOWANCE_CHARS: past it, updates wait until the output grew enough, so what a stream sends
 * stays linear in what the model sends however it splits it or however long it takes.
 */
const UPDATE_CHARS_PER_MODEL_CHAR = 8;
const UPDATE_ALLOWANCE_CHARS = 256 * 1024;

/** The input as a token update shows it: its start, and how much more there is. */
export function inputPreview(raw: string): string {
  if (raw.length <= STREAMING_INPUT_PREVIEW_CHARS) return raw;
  const more = raw.length - STREAMING_INPUT_PREVIEW_CHARS;
  return `${raw.slice(0, STREAMING_INPUT_PREVIEW_CHARS)}… (${more} more characters)`;
}

/** One streaming model call's output so far, and whether the next token is worth an update. */
export class StreamedOutput {
  private received = '';
  private shownAt = -Infinity;
  private shownChars = 0;
  /** Tokens arrived since the last update. */
  held = false;

  constructor(
    /** What every update repeats besides the output (the input preview). */
    readonly input: string,
  ) {}

  get text(): string {
    return this.received;
  }

  /** Adds a token; true when an update showing the output so far is due now. */
  add(chunk: string, now: number): boolean {
    this.received += chunk;
    const cost = this.input.length + this.received.length;
    const allowed = UPDATE_CHARS_PER_MODEL_CHAR * this.received.length + UPDATE_ALLOWANCE_CHARS;
    if (now - this.shownAt < TOKEN_UPDATE_INTERVAL_MS || this.shownChars + cost > allowed) {
      this.held = true;
      return false;
    }
    this.shownAt = now;
    this.shownChars += cost;
    this.held = false;
    return true;
  }
}
