import { randomUUID } from 'node:crypto';
import type { ElicitResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Identity } from '../core/identity/identity';
import type { ExecutionService } from '../executions/engine/execution.service';
import type { Prompt } from '../runtime/prompts';
import { answerOf, EXECUTION_META, INTERACTION_META } from './elicitation';
import type { SharedElicitation, SharedSessions } from './shared-sessions';

/**
 * What a person's answer to an elicitation does: `accept` answers the prompt; `decline` and `cancel`
 * answer NAT's cancel to a prompt that allows it, else cancel the execution (`cancelExecution`).
 */
export async function settlePrompt(
  executions: ExecutionService,
  identity: Identity,
  target: SharedElicitation & { prompt: Prompt },
  result: ElicitResult,
  cancelExecution: (reason: string) => Promise<void>,
): Promise<void> {
  const { executionId, interactionId, prompt } = target;
  if (result.action === 'accept') {
    await executions.respond(identity, executionId, interactionId, answerOf(prompt, result));
  } else if (prompt.allow_cancel) {
    await executions.respond(identity, executionId, interactionId, { type: 'cancel' });
  } else {
    await cancelExecution(`the person chose ${result.action} on prompt ${interactionId}`);
  }
}

type Message = JSONRPCMessage & { id?: string | number; method?: string; params?: Record<string, unknown> };

const isResponse = (m: Message) => m.id !== undefined && m.method === undefined;

/**
 * Elicitation ids that mean something on every replica. The SDK numbers a server's requests from 0,
 * so two replicas serving one session would both ask `id: 0`: each request this process sends goes
 * out as `<process>.<n>`, and the elicitations are recorded in the shared store, so an answer that
 * reaches another replica (its own HTTP request) still answers its prompt there, through the engine.
 */
export class ElicitationRelay {
  private readonly process = randomUUID().slice(0, 8);

  constructor(
    private readonly shared: SharedSessions,
    private readonly executions: ExecutionService,
    /** How long an elicitation's record is kept: the longest a prompt waits. */
    private readonly ttlSeconds: number,
  ) {}

  /** A message this process sends: requests get their process-wide id, elicitations a shared record. */
  async outgoing(sessionId: string | undefined, message: JSONRPCMessage): Promise<JSONRPCMessage> {
    const m = message as Message;
    // A request withdrawn (`notifications/cancelled`) is named by the id the client saw.
    if (m.method === 'notifications/cancelled' && typeof m.params?.requestId === 'number') {
      return {
        ...m,
        params: { ...m.params, requestId: `${this.process}.${m.params.requestId}` },
      } as JSONRPCMessage;
    }
    if (m.method === undefined || m.id === undefined) return message;
    const id = `${this.process}.${m.id}`;
    const meta = (m.params?._meta ?? {}) as Record<string, unknown>;
    const executionId = meta[EXECUTION_META];
    const interactionId = meta[INTERACTION_META];
    if (sessionId && m.method === 'elicitation/create' && typeof executionId === 'string') {
      await this.shared.saveElicitation(
        sessionId,
        id,
        { executionId, interactionId: String(interactionId) },
        this.ttlSeconds,
      );
    }
    return { ...m, id } as JSONRPCMessage;
  }

  /**
   * A body a client sent: answers to this process's requests get back the ids its server gave them;
   * answers to another replica's elicitations are settled here. Returns what is left for the SDK.
   */
  async incoming(sessionId: string, identity: Identity, body: unknown): Promise<unknown> {
    const batch = Array.isArray(body);
    const messages = (batch ? body : [body]) as Message[];
    const left: Message[] = [];
    for (const m of messages) {
      if (!m || typeof m !== 'object' || !isResponse(m) || typeof m.id !== 'string') {
        left.push(m);
        continue;
      }
      const [process, n] = m.id.split('.');
      if (process === this.process && /^\d+$/.test(n ?? '')) left.push({ ...m, id: Number(n) });
      else await this.settleElsewhere(sessionId, identity, m);
    }
    if (left.length === 0) return undefined;
    return batch ? left : left[0];
  }

  private async settleElsewhere(sessionId: string, identity: Identity, m: Message): Promise<void> {
    const target = await this.shared.takeElicitation(sessionId, String(m.id));
    const result = (m as { result?: ElicitResult }).result;
    if (!target || !result) return;
    const record = await this.executions.record(identity, target.executionId);
    const prompt = record.interactions[target.interactionId]?.prompt as Prompt | undefined;
    if (!prompt) return;
    await settlePrompt(this.executions, identity, { ...target, prompt }, result, () =>
      this.executions.cancel(identity, target.executionId),
    );
  }
}
