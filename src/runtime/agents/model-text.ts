/** How much of a name or text the model chose an agent's message quotes. */
export const QUOTED_CHARS = 100;

/**
 * The start of a name or text the model chose, as an agent's message quotes it: a model that names a
 * tool with 100,000 characters would otherwise have each mention copy them (ReWOO evidence is pasted at
 * every placeholder that names it).
 */
export function quoted(text: string, max = QUOTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
