import { Injectable, Logger } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import type { ChatMessage } from '../runtime/chat-input';
import { A2aTaskStore, type ContextTurn } from './a2a-task-store';

/** The owner of anonymous contexts: only contexts the server issued are kept under it (see `completed`). */
const ANONYMOUS = '';

/**
 * A2A contexts as conversations: a new task in a context the caller used before gets the context's
 * earlier exchanges (each completed task's first message and its answer) as chat history before its own message.
 * A context is its owner's: another identity's same `contextId` starts afresh.
 *
 * Anonymous callers cannot be told apart, so for them the context id is the only key, as an anonymous
 * AG-UI thread's interrupt ids are: a context is remembered only when the server made its id (a random
 * UUID handed to the client that started it, and to nobody else). A `contextId` an anonymous client
 * chose itself ("ctx-1", anyone's guess) groups its tasks but keeps no history, for it or anyone.
 */
@Injectable()
export class TaskContexts {
  private readonly logger = new Logger('A2aContexts');

  constructor(private readonly store: A2aTaskStore) {}

  /** The chat the workflow reads for a message in `contextId`: the history, then what was `said`. */
  async chat(identity: Identity, contextId: string, said: ChatMessage['content']): Promise<ChatMessage[]> {
    const turns = await this.store.turns(ownerOf(identity), contextId);
    const history = turns.flatMap((t): ChatMessage[] => [
      { role: 'user', content: t.user },
      { role: 'assistant', content: t.answer },
    ]);
    return [...history, { role: 'user', content: said }];
  }

  /**
   * Adds a completed task to its context; a failure to is logged (the task itself is done). `issued`:
   * the server made the context id for this task (its message named none). An anonymous task joins
   * only such a context: one issued for it, or one already remembered (which only issued ones are).
   */
  completed(identity: Pick<Identity, 'userId'>, contextId: string, turn: ContextTurn, issued: boolean): void {
    this.remember(ownerOf(identity), contextId, turn, issued).catch((err: Error) => {
      this.logger.warn(`Could not add task ${turn.taskId} to its context: ${err.message}`);
    });
  }

  private async remember(
    owner: string,
    contextId: string,
    turn: ContextTurn,
    issued: boolean,
  ): Promise<void> {
    if (owner === ANONYMOUS && !issued && (await this.store.turns(owner, contextId)).length === 0) return;
    await this.store.addTurn(owner, contextId, turn);
  }
}

function ownerOf(identity: Pick<Identity, 'userId'>): string {
  return identity.userId ?? ANONYMOUS;
}
