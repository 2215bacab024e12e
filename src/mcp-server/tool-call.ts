import { Logger } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ExecutionUrls } from '../http-responders/execution-urls';
import { isChatCompletion } from '../runtime/chat-completion';
import type { ExecutionEvent, TerminalEvent } from '../runtime/execution-event';
import { answerText } from '../runtime/output-text';
import type { Prompt } from '../runtime/prompts';
import { contextOf, type CallContext } from './call-context';
import { consentElicitation, consentHandOff, type Consent } from './consent';
import { elicitationOf } from './elicitation';
import { settlePrompt } from './elicitation-relay';
import { McpTools, type McpTool } from './mcp-tools';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolCallDeps {
  executions: ExecutionService;
  urls: ExecutionUrls;
  /** `general.default_prompt_timeout_seconds`: how long an elicitation may wait at most. */
  promptTimeoutSeconds: number;
}

const logger = new Logger('McpServer');

export const failure = (text: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
});

/** `tools/call`: runs the tool on the engine and answers with its output (`nat mcp serve`'s text). */
export async function callTool(
  deps: ToolCallDeps,
  server: Server,
  tool: McpTool,
  args: Record<string, unknown>,
  extra: Extra,
): Promise<CallToolResult> {
  const context = contextOf(extra.authInfo);
  const input = McpTools.inputOf(tool, args);
  if (!input.ok) {
    const problems = input.issues.map((i) => `${i.loc.join('.') || 'arguments'}: ${i.msg}`).join('; ');
    return failure(`Invalid arguments for ${tool.name}: ${problems}`);
  }
  let execution: Execution;
  try {
    execution = await deps.executions.start(input.input, context.identity, {
      request: context.request,
      trace: context.trace,
      interactive: true,
      workflow: tool.workflow ? undefined : tool.fn,
    });
  } catch (err) {
    return failure((err as Error).message);
  }
  return new ToolCall(deps, server, execution, context, extra).result();
}

/** The text (and structured content) of a finished execution, or its error. */
function resultOf(end: TerminalEvent): CallToolResult {
  if (end.kind === 'failed') return failure(end.error.message);
  if (end.kind === 'cancelled') return failure(`Execution cancelled (${end.reason})`);
  const result = end.result;
  const structured =
    typeof result === 'object' && result !== null && !Array.isArray(result) && !isChatCompletion(result);
  const text =
    typeof result === 'object' && result !== null && !isChatCompletion(result)
      ? JSON.stringify(result)
      : answerText(result);
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: result as Record<string, unknown> } : {}),
  };
}

/**
 * One running call: renders the execution's events to its client (steps as progress, prompts as
 * elicitations) and settles with the tool result once the execution ends or must be finished elsewhere.
 */
class ToolCall {
  private progress = 0;
  /** Open elicitations by interaction id, aborted when the prompt is answered another way. */
  private readonly asking = new Map<string, AbortController>();
  /** Notifications shown: the call ends once the person has seen them. */
  private readonly shown: Promise<unknown>[] = [];
  private settled = false;
  private settle: (result: CallToolResult) => void = () => {};

  constructor(
    private readonly deps: ToolCallDeps,
    private readonly server: Server,
    private readonly execution: Execution,
    private readonly context: CallContext,
    private readonly extra: Extra,
  ) {}

  result(): Promise<CallToolResult> {
    return new Promise((resolve) => {
      // notifications/cancelled (the SDK's abort of the request) stops the execution.
      const onAbort = () => void this.execution.cancel('cancelled by the MCP client');
      this.extra.signal.addEventListener('abort', onAbort, { once: true });
      const subscription: { stop?: () => void } = {};
      this.settle = (result) => {
        if (this.settled) return;
        this.settled = true;
        this.extra.signal.removeEventListener('abort', onAbort);
        for (const ask of this.asking.values()) ask.abort();
        queueMicrotask(() => subscription.stop?.());
        resolve(result);
      };
      subscription.stop = this.execution.events.subscribe((event) => this.render(event));
      if (this.settled) subscription.stop();
    });
  }

  private render(event: ExecutionEvent): void {
    if (this.settled) return;
    switch (event.kind) {
      case 'step':
        return this.report(`${event.step.payload.event_type} ${event.step.payload.name ?? ''}`.trim());
      case 'interaction_required':
        return void this.ask(event.interactionId, event.prompt as Prompt);
      case 'interaction_resolved':
        // Answered over HTTP (or timed out): the client's form is withdrawn.
        this.asking.get(event.interactionId)?.abort();
        return;
      case 'oauth_required':
        return void this.consent(event);
      case 'oauth_resolved':
        return this.consented(event.state);
      case 'completed':
      case 'failed':
      case 'cancelled':
        void Promise.allSettled(this.shown).then(() => this.settle(resultOf(event)));
        return;
      default:
        return;
    }
  }

  private report(message: string): void {
    const progressToken = this.extra._meta?.progressToken;
    if (progressToken === undefined) return;
    this.progress++;
    void this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: this.progress, message },
      })
      .catch(() => undefined);
  }

  private get elicitation(): { form?: object; url?: object } | undefined {
    return this.server.getClientCapabilities()?.elicitation as { form?: object; url?: object } | undefined;
  }

  private get canElicit(): boolean {
    const elicitation = this.elicitation;
    return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  }

  /**
   * An OAuth consent: a URL-mode elicitation with the start link when the client can open one, else
   * the call ends with the link. Declining or cancelling it cancels the execution.
   */
  private async consent(consent: Consent): Promise<void> {
    this.execution.expose();
    if (this.elicitation?.url === undefined) {
      return this.settle(
        consentHandOff(consent, this.execution.id, this.deps.urls.status(this.execution.id)),
      );
    }
    const abort = new AbortController();
    this.asking.set(`oauth:${consent.state}`, abort);
    try {
      const result = await this.server.elicitInput(consentElicitation(consent), {
        relatedRequestId: this.extra.requestId,
        signal: abort.signal,
        timeout: this.deps.promptTimeoutSeconds * 1000,
      });
      if (result.action !== 'accept') {
        await this.execution.cancel(`the person chose ${result.action} on the ${consent.provider} consent`);
      }
    } catch (err) {
      // The call ended first, or the client never answered: the consent link stays valid meanwhile.
      logger.debug(`Consent elicitation ${consent.state}: ${(err as Error).message}`);
    } finally {
      this.asking.delete(`oauth:${consent.state}`);
    }
  }

  /** The person consented: the client is told its URL elicitation is complete (2025-11-25). */
  private consented(state: string): void {
    if (this.elicitation?.url === undefined) return;
    const notify = this.server.createElicitationCompletionNotifier(state, {
      relatedRequestId: this.extra.requestId,
    });
    void notify().catch(() => undefined);
  }

  private async ask(interactionId: string, prompt: Prompt): Promise<void> {
    if (!this.canElicit) {
      if (prompt.input_type !== 'notification') this.handOff(interactionId, prompt);
      return;
    }
    // The elicitation names the execution (its response URL): it stays readable once it ends.
    this.execution.expose();
    const abort = new AbortController();
    const notification = prompt.input_type === 'notification';
    if (!notification) this.asking.set(interactionId, abort);
    const responseUrl = this.deps.urls.response(this.execution.id, interactionId);
    const params = elicitationOf(prompt, responseUrl, this.execution.id, interactionId);
    const asked = this.server.elicitInput(params, {
      relatedRequestId: this.extra.requestId,
      signal: abort.signal,
      timeout: (prompt.timeout ?? this.deps.promptTimeoutSeconds) * 1000,
    });
    if (notification) {
      this.shown.push(asked.catch(() => undefined));
      return;
    }
    try {
      const result = await asked;
      await settlePrompt(
        this.deps.executions,
        this.context.identity,
        { executionId: this.execution.id, interactionId, prompt },
        result,
        (reason) => this.execution.cancel(reason),
      );
    } catch (err) {
      // Answered elsewhere first, withdrawn, or timed out: the execution's own events say what happened.
      logger.debug(`Elicitation for ${interactionId}: ${(err as Error).message}`);
    } finally {
      this.asking.delete(interactionId);
    }
  }

  /**
   * A client that cannot ask a person: the call ends with the prompt's response URL, and the execution
   * waits there for the answer (the prompt stays answerable over HTTP, as on every face).
   */
  private handOff(interactionId: string, prompt: Prompt): void {
    this.execution.expose();
    const id = this.execution.id;
    const responseUrl = this.deps.urls.response(id, interactionId);
    const statusUrl = this.deps.urls.status(id);
    const text =
      `The workflow asks a person: "${prompt.text}". This MCP client declared no elicitation ` +
      `capability, so it cannot ask here: answer with POST ${responseUrl} (body {"response": …}), ` +
      `then follow the execution at ${statusUrl}.`;
    this.settle({
      isError: true,
      content: [{ type: 'text', text }],
      structuredContent: {
        execution_id: id,
        status: 'interaction_required',
        interaction_id: interactionId,
        prompt,
        response_url: responseUrl,
        status_url: statusUrl,
      },
    });
  }
}
