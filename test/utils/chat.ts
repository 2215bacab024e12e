/** A `chat.completion.chunk` as the chat streams send it. */
export interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string }; finish_reason: string | null }[];
}

/** A chat request with one user message. */
export const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });
