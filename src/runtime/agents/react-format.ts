import { messageText, type ChatMessage } from '../chat-input';
import type { ModelMessage } from '../llm/llm-client';
import type { AgentTools } from './agent-tools';

export const FINAL_ANSWER = 'Final Answer:';

/** The default ReAct instructions; `{tools}` and `{tool_names}` are filled in. */
export const REACT_SYSTEM_PROMPT = `Answer the user as well as you can. You can use these tools:

{tools}

To use a tool, reply in exactly this format and then stop:

Thought: what you think, and what to do next
Action: the tool to use, one of [{tool_names}]
Action Input: the tool's arguments as a JSON object (None if it takes none)

The tool's result comes back to you as "Observation: ...". Use tools as many times as you need.
When you know the answer, reply in this format:

Thought: I now know the final answer
${FINAL_ANSWER} your answer to the user`;

/** The instructions with the tools listed: name, description and the JSON Schema of the arguments. */
export function reactInstructions(template: string, tools: AgentTools): string {
  const lines = tools.names().map((name) => {
    const tool = tools.get(name)!;
    return `${name}: ${tool.description} Arguments: ${JSON.stringify(tool.parameters)}`;
  });
  return template.replace('{tools}', lines.join('\n')).replace('{tool_names}', tools.names().join(', '));
}

export type ReActStep =
  | { kind: 'action'; tool: string; input: string }
  | { kind: 'final'; answer: string }
  | { kind: 'invalid'; problem: string };

const isSpace = (c: string | undefined) => c !== undefined && c.trim() === '';

/** Where `i` stops pointing at white space, going forward. */
function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text[i])) i++;
  return i;
}

/**
 * When `words` (white space allowed between them) and a colon start at `i`, the index just after the
 * colon; -1 otherwise. Model text is read with plain scans, never a backtracking regex: a reply of a few
 * thousand spaces once held the event loop for seconds.
 */
function labelEnd(text: string, i: number, words: string[]): number {
  for (const word of words) {
    i = skipSpace(text, i);
    if (!text.startsWith(word, i)) return -1;
    i += word.length;
  }
  i = skipSpace(text, i);
  return text[i] === ':' ? i + 1 : -1;
}

/** Every index where `word` occurs, in order. */
function* occurrences(text: string, word: string, from = 0): Generator<number> {
  for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + word.length)) yield at;
}

/** The input ends at a line the model began with `Observation:` (it wrote the tool's result itself). */
function inputEnd(text: string, from: number): number {
  for (const at of occurrences(text, 'Observation', from)) {
    if (labelEnd(text, at, ['Observation']) < 0) continue;
    let start = at;
    while (start > from && isSpace(text[start - 1])) start--;
    if (text.slice(start, at).includes('\n')) return start;
  }
  return text.length;
}

function unfenced(input: string): string {
  if (input.length < 6 || !input.startsWith('```') || !input.endsWith('```')) return input;
  const inner = input.slice(3, -3);
  return (inner.startsWith('json') ? inner.slice(4) : inner).trim();
}

/** The first `Action:` line followed by an `Action Input:`, as the tool's name and its raw input. */
function findAction(text: string): { tool: string; input: string } | undefined {
  // Several `Action:` on one line share its end and the line after it: each is read once.
  let lineEnd = -1;
  for (const at of occurrences(text, 'Action')) {
    const nameStart = labelEnd(text, at, ['Action']);
    if (nameStart < 0) continue;
    if (nameStart <= lineEnd) continue;
    lineEnd = text.indexOf('\n', nameStart);
    if (lineEnd < 0) return undefined;
    const inputStart = labelEnd(text, lineEnd + 1, ['Action', 'Input']);
    if (inputStart < 0) continue;
    const start = skipSpace(text, inputStart);
    const input = text.slice(start, inputEnd(text, start)).trimEnd();
    return { tool: text.slice(nameStart, lineEnd).trim(), input: unfenced(input) };
  }
  return undefined;
}

/** Reads one ReAct reply: an action to run, the final answer, or what is wrong with it. */
export function parseReAct(text: string): ReActStep {
  const action = findAction(text);
  const final = text.indexOf(FINAL_ANSWER);
  if (action && final >= 0) {
    return { kind: 'invalid', problem: `the reply has both an Action and a ${FINAL_ANSWER}; give only one` };
  }
  if (action) return { kind: 'action', ...action };
  if (final >= 0) return { kind: 'final', answer: text.slice(final + FINAL_ANSWER.length).trim() };
  if (![...occurrences(text, 'Action')].some((at) => labelEnd(text, at, ['Action']) >= 0)) {
    return { kind: 'invalid', problem: `no "Action:" and no "${FINAL_ANSWER}" line` };
  }
  return { kind: 'invalid', problem: 'an "Action:" line without an "Action Input:" line after it' };
}

/** The chat history in ReAct's text form: tool calls as Action lines, tool results as Observations. */
export function reactMessage(message: ChatMessage): ModelMessage {
  const content = messageText(message.content);
  switch (message.role) {
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map((c) => {
        const fn = (c.function ?? {}) as { name?: string; arguments?: string };
        return `Action: ${fn.name ?? ''}\nAction Input: ${fn.arguments ?? 'None'}`;
      });
      return { role: 'assistant', content: [content, ...calls].filter(Boolean).join('\n') };
    }
    case 'tool':
    case 'function':
      return { role: 'user', content: `Observation: ${content}` };
    default:
      return { role: message.role, content };
  }
}

/**
 * Picks the final answer out of a streaming ReAct reply: nothing passes until `Final Answer:` has been
 * written, then the text after it passes as it comes, without its leading and trailing white space.
 */
export class FinalAnswerStream {
  /** Before the marker: the end of the text, as long as a marker cut in two could need. */
  private tail = '';
  /** After the marker: the text not passed on yet (white space waiting for what follows it). */
  private pending: string | undefined;
  private started = false;

  constructor(private readonly emit: (text: string) => void) {}

  // Only the new piece is searched and tested, so a long reply in small pieces costs linear time.
  push(delta: string): void {
    if (this.pending === undefined) {
      const text = this.tail + delta;
      const at = text.indexOf(FINAL_ANSWER);
      if (at < 0) {
        this.tail = text.slice(-(FINAL_ANSWER.length - 1));
        return;
      }
      this.pending = text.slice(at + FINAL_ANSWER.length);
      if (this.pending.trim() === '') return;
    } else {
      this.pending += delta;
      if (delta.trim() === '') return;
    }
    // White space waits for the text after it: dropped at the start, and at the end if nothing follows.
    this.emit(this.started ? this.pending : this.pending.trimStart());
    this.pending = '';
    this.started = true;
  }
}
