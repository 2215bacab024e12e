import type { ExecutionEvent } from '../runtime/execution-event';
import { chunkText } from '../runtime/output-text';
import { resultText } from '../runtime/chat-completion';
import type { Prompt } from '../runtime/prompts';
import { CLIENT_TOOL_STEP } from '../runtime/agents/client-tools';
import {
  itemId,
  openingObject,
  usageOf,
  type FunctionCallItem,
  type MessageItem,
  type ResponseBase,
  type ResponseObject,
  type ResponseStatus,
} from './response-object';

/** One streamed event of OpenAI's Responses API (`type` is also the SSE `event:` name). */
export type StreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** What the workflow waits on when a response ends with a `function_call` for the client to answer. */
export type PendingCall =
  | { kind: 'prompt'; callId: string; interactionId: string; prompt: Prompt }
  | { kind: 'oauth'; callId: string }
  /** An agent calls one of the request's function tools: the client's output is the tool's result. */
  | { kind: 'tool'; callId: string; interactionId: string };

/** The function a prompt is named after when no tool of the workflow asked it. */
export const HUMAN_INPUT = 'human_input';
export const OAUTH_CONSENT = 'oauth_consent';

/** The `call_id` of an OAuth consent's function call, from its flow's state. */
export const oauthCallId = (state: string): string => `oauth_${state}`;

/**
 * Renders a span of an execution's events as one OpenAI response: its stream events (numbered from 0)
 * and the response object they build. It ends at the execution's end, or where the workflow waits for
 * a person: the response is then `completed` with a `function_call` item the client answers in the
 * next response. Intermediate steps stay out of the output (the other faces show them); only the names
 * of the tools open at a prompt are read, to name its function call.
 */
export class ResponseRender {
  /** The response as it stands: later events change it, so a reader serializes it before they come. */
  readonly response: ResponseObject;
  pending?: PendingCall;
  /** Whether the response has ended (its closing event is out). */
  ended = false;
  private seq = 0;
  private text?: { item: MessageItem; index: number };
  /** The tool steps open now; `clientArgs` for an agent's call of a client's tool. */
  private readonly tools: { id: string; name: string; clientArgs?: string }[] = [];
  private result: unknown;

  constructor(
    base: ResponseBase,
    /**
     * Where the stream events go; none for a response answered whole. Each event holds the render's own
     * objects, which later events change: `emit` serializes it before it returns.
     */
    private readonly emit: ((event: StreamEvent) => void) | undefined,
    /** The request's text, for the usage estimate of workflows that report none. */
    private readonly prompt: string,
  ) {
    this.response = openingObject(base);
  }

  /** `response.created` (with `queued` for a background response) and `response.in_progress`. */
  open(): void {
    this.send('response.created', () => ({ response: this.response }));
    this.response.status = 'in_progress';
    this.send('response.in_progress', () => ({ response: this.response }));
  }

  /** Renders one event; true once the response has ended (the rest of the events are another's). */
  render(event: ExecutionEvent): boolean {
    switch (event.kind) {
      case 'output':
        this.delta(chunkText(event.value));
        return false;
      case 'step':
        this.track(event.step.payload);
        return false;
      case 'interaction_required': {
        const prompt = event.prompt as Prompt;
        if (prompt.input_type === 'notification') return false;
        const tool = this.tools.at(-1);
        if (tool?.clientArgs !== undefined) {
          const callId = event.interactionId;
          this.pending = { kind: 'tool', callId, interactionId: event.interactionId };
          this.functionCall(tool.name, callId, tool.clientArgs);
          return this.end('completed');
        }
        const name = tool?.name ?? HUMAN_INPUT;
        this.pending = {
          kind: 'prompt',
          callId: event.interactionId,
          interactionId: event.interactionId,
          prompt,
        };
        this.functionCall(name, event.interactionId, JSON.stringify(prompt));
        return this.end('completed');
      }
      case 'oauth_required': {
        const callId = oauthCallId(event.state);
        this.pending = { kind: 'oauth', callId };
        this.functionCall(
          OAUTH_CONSENT,
          callId,
          JSON.stringify({ auth_url: event.authUrl, provider: event.provider }),
        );
        return this.end('completed');
      }
      case 'completed':
        this.result = event.result;
        if (!event.streamed) this.delta(resultText(event.result));
        return this.end('completed');
      case 'failed':
        this.response.error = { code: 'server_error', message: event.error.message };
        return this.end('failed');
      case 'cancelled':
        return this.end('cancelled');
      default:
        return false;
    }
  }

  private track(payload: {
    event_type: string;
    UUID: string;
    name: string | null;
    metadata?: Record<string, unknown> | null;
  }): void {
    if (payload.event_type === 'TOOL_START') {
      const args = payload.metadata?.[CLIENT_TOOL_STEP];
      const clientArgs = typeof args === 'string' ? args : undefined;
      this.tools.push({ id: payload.UUID, name: payload.name ?? 'tool', clientArgs });
    }
    if (payload.event_type === 'TOOL_END') {
      const at = this.tools.findIndex((t) => t.id === payload.UUID);
      if (at >= 0) this.tools.splice(at, 1);
    }
  }

  private delta(text: string): void {
    if (text === '') return;
    if (!this.text) {
      const index = this.response.output.length;
      const item: MessageItem = {
        type: 'message',
        id: itemId('msg', this.response.id, index),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      this.response.output.push(item);
      this.text = { item, index };
      this.send('response.output_item.added', () => ({ output_index: index, item }));
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
      this.send('response.content_part.added', () => ({
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }));
    }
    const { item, index } = this.text;
    item.content[0].text += text;
    this.send('response.output_text.delta', () => ({
      item_id: item.id,
      output_index: index,
      content_index: 0,
      delta: text,
      logprobs: [],
    }));
  }

  private closeText(): void {
    if (!this.text) return;
    const { item, index } = this.text;
    this.text = undefined;
    const part = item.content[0];
    const at = { item_id: item.id, output_index: index, content_index: 0 };
    this.send('response.output_text.done', () => ({ ...at, text: part.text, logprobs: [] }));
    this.send('response.content_part.done', () => ({ ...at, part }));
    item.status = 'completed';
    this.send('response.output_item.done', () => ({ output_index: index, item }));
  }

  private functionCall(name: string, callId: string, args: string): void {
    this.closeText();
    const index = this.response.output.length;
    const id = itemId('fc', this.response.id, index);
    const item: FunctionCallItem = {
      type: 'function_call',
      id,
      call_id: callId,
      name,
      arguments: '',
      status: 'in_progress',
    };
    this.send('response.output_item.added', () => ({ output_index: index, item: { ...item } }));
    this.send('response.function_call_arguments.delta', () => ({
      item_id: id,
      output_index: index,
      delta: args,
    }));
    this.send('response.function_call_arguments.done', () => ({
      item_id: id,
      output_index: index,
      name,
      arguments: args,
    }));
    Object.assign(item, { arguments: args, status: 'completed' });
    this.response.output.push(item);
    this.send('response.output_item.done', () => ({ output_index: index, item: { ...item } }));
  }

  /**
   * The one closing event: `response.completed`, or `response.failed` for a failure and (there is no
   * cancelled event in the API) for a cancelled response, whose object says `cancelled`.
   */
  private end(status: ResponseStatus): true {
    this.ended = true;
    this.closeText();
    const r = this.response;
    r.status = status;
    const text = r.output.flatMap((i) => (i.type === 'message' ? [i.content[0].text] : [])).join('');
    if (status === 'completed') r.usage = usageOf(this.result, this.prompt, text);
    this.send(status === 'completed' ? 'response.completed' : 'response.failed', () => ({
      response: this.response,
    }));
    return true;
  }

  /** `body` is made only when someone reads the events (a whole answer needs only the object). */
  private send(type: string, body: () => Record<string, unknown>): void {
    const sequence_number = this.seq++;
    if (this.emit) this.emit({ type, sequence_number, ...body() });
  }
}
