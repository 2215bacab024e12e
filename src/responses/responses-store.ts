import type { ChatMessage } from '../runtime/chat-input';
import type { ResponseObject } from './response-object';
import type { PendingCall } from './response-render';
import type { InputItem } from './response-request';

/**
 * What the face keeps of one response (plain JSON, so a shared store keeps it for every replica): the
 * object clients read, its input items, the conversation so far for `previous_response_id`, and where
 * in its execution it stands.
 */
export interface StoredResponse {
  id: string;
  /** The identity that created it; null for an anonymous caller (then only its unguessable id reaches it). */
  owner: string | null;
  executionId: string;
  /** The response renders the execution's events after this one. */
  afterSeq: number;
  /** The last event it rendered, once it has ended. */
  endSeq?: number;
  response: ResponseObject;
  input: InputItem[];
  /** The request's text, for the usage estimate when the response is rendered again. */
  prompt: string;
  /** The chat history up to and including this response (not its instructions, as OpenAI does). */
  conversation: ChatMessage[];
  /** The function call the response ended with, which the next response may answer. */
  pending?: PendingCall;
  expiresAt: number;
}

/**
 * The stored responses: a port (abstract class, also the DI token) with a memory adapter for one
 * process. A response is forgotten at `expiresAt` (`general.front_end.responses_ttl_seconds`).
 */
export abstract class ResponsesStore {
  abstract get(id: string): Promise<StoredResponse | undefined>;
  abstract put(response: StoredResponse): Promise<void>;
  abstract delete(id: string): Promise<boolean>;
  abstract sweep(now?: number): Promise<void>;
}

export class MemoryResponsesStore extends ResponsesStore {
  private readonly responses = new Map<string, { json: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const kept = this.responses.get(id);
    if (kept === undefined) return undefined;
    if (kept.expiresAt > this.now()) return JSON.parse(kept.json) as StoredResponse;
    this.responses.delete(id);
    return undefined;
  }

  /** Kept as JSON, as a shared store would: what a caller changes afterwards is not stored by accident. */
  async put(response: StoredResponse): Promise<void> {
    this.responses.set(response.id, { json: JSON.stringify(response), expiresAt: response.expiresAt });
  }

  async delete(id: string): Promise<boolean> {
    return this.responses.delete(id);
  }

  async sweep(now = this.now()): Promise<void> {
    for (const [id, kept] of this.responses) if (kept.expiresAt <= now) this.responses.delete(id);
  }
}
