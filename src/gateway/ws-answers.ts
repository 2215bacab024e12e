import { Injectable } from '@nestjs/common';
import { lastUserText } from '../runtime/chat-input';
import { AppError } from '../core/errors/app-error';
import { ExecutionService } from '../executions/engine/execution.service';
import { AnswerMismatch, type Prompt } from '../runtime/prompts';
import { ConversationRuns } from './conversation-runs';
import { answerFromText } from '../runtime/text-answer';
import { check, rejectFrame } from './ws-frames';
import { UserInteractionMessageDto } from './ws-messages';
import type { WsRun } from './ws-run';
import type { WsSession } from './ws-session';

/** `user_interaction_message`: a person's reply, matched to the prompt it answers and handed to the engine. */
@Injectable()
export class WsAnswers {
  constructor(
    private readonly executions: ExecutionService,
    private readonly conversations: ConversationRuns,
  ) {}

  async answer(session: WsSession, raw: unknown): Promise<void> {
    const checked = check(UserInteractionMessageDto, raw);
    if (!checked.ok) {
      return rejectFrame(session, 'invalid_message', 'Invalid user_interaction_message', checked.details);
    }
    const reply = checked.value;
    // An interaction id names its prompt whatever the conversation; only the fallback (a reply that
    // names none) is scoped to this connection's conversation.
    const byId = this.runWaitingOn(session, reply.parent_id);
    const current = session.run;
    const conversationMatches =
      !current || reply.conversation_id == null || reply.conversation_id === current.conversationId;
    const waiting = current && conversationMatches ? current.waitingPrompts() : [];
    const run = byId ?? current;
    const interactionId = byId ? reply.parent_id! : waiting.length === 1 ? waiting[0] : undefined;
    const refuse = (details: string) =>
      rejectFrame(
        session,
        'invalid_data_content',
        'Reply not accepted',
        details,
        reply.parent_id ?? undefined,
      );
    if (!run || interactionId === undefined) {
      return refuse(
        waiting.length > 1
          ? `${waiting.length} prompts are waiting: set parent_id to the id of the system_interaction_message you answer`
          : 'No prompt is waiting for an answer in this conversation',
      );
    }
    const prompt = run.promptOf(interactionId) as Prompt;
    let answer: Record<string, unknown>;
    try {
      answer =
        reply.content.cancel === true
          ? { type: 'cancel' }
          : answerFromText(prompt, lastUserText(reply.content.messages ?? []));
    } catch (err) {
      if (err instanceof AnswerMismatch) return refuse(err.message);
      throw err;
    }
    try {
      await this.executions.respond(session.identity, run.execution.id, interactionId, answer);
    } catch (err) {
      if (err instanceof AppError) return refuse(err.message);
      throw err;
    }
  }

  /** The run, this connection's or another of the same identified user's, waiting on `interactionId`. */
  private runWaitingOn(session: WsSession, interactionId: string | null | undefined): WsRun | undefined {
    if (!interactionId) return undefined;
    if (session.run?.waitingPrompts().includes(interactionId)) return session.run;
    const userId = session.identity.userId;
    return userId === null ? undefined : this.conversations.waitingOn(userId, interactionId);
  }
}
