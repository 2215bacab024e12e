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

const ACTION = /Action\s*:[ \t]*(.*?)[ \t]*\n\s*Action\s*Input\s*:\s*([\s\S]*?)\s*(?:\n\s*Observation\s*:|$)/;

/** Reads one ReAct reply: an action to run, the final answer, or what is wrong with it. */
export function parseReAct(text: string): ReActStep {
  const action = ACTION.exec(text);
  const final = text.indexOf(FINAL_ANSWER);
  if (action && final >= 0) {
    return { kind: 'invalid', problem: `the reply has both an Action and a ${FINAL_ANSWER}; give only one` };
  }
  if (action) {
    const input = action[2].replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
    return { kind: 'action', tool: action[1].trim(), input };
  }
  if (final >= 0) return { kind: 'final', answer: text.slice(final + FINAL_ANSWER.length).trim() };
  if (!/Action\s*:/.test(text)) {
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
  private text = '';
  /** Where the text not passed on yet begins, once the marker is found. */
  private from = -1;
  private started = false;

  constructor(private readonly emit: (text: string) => void) {}

  push(delta: string): void {
    this.text += delta;
    if (this.from < 0) {
      const at = this.text.indexOf(FINAL_ANSWER);
      if (at < 0) return;
      this.from = at + FINAL_ANSWER.length;
    }
    const pending = this.text.slice(this.from);
    // White space waits for the text after it: dropped at the start, and at the end if nothing follows.
    if (pending.trim() === '') return;
    this.from = this.text.length;
    this.emit(this.started ? pending : pending.trimStart());
    this.started = true;
  }
}
