import { Injectable, Logger } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import type { ChatMessage } from '../runtime/chat-input';
import { A2aTaskStore, type ContextTurn } from './a2a-task-store';

/**
 * A2A contexts as conversations: a new task in a context the caller used before gets the context's
 * earlier exchanges (each completed task's first message and its answer) as chat history before its own message.
 * A context is its owner's: another identity's same `contextId` starts afresh.
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

  /** Adds a completed task to its context; a failure to is logged (the task itself is done). */
  completed(identity: Pick<Identity, 'userId'>, contextId: string, turn: ContextTurn): void {
    this.store.addTurn(ownerOf(identity), contextId, turn).catch((err: Error) => {
      this.logger.warn(`Could not add task ${turn.taskId} to its context: ${err.message}`);
    });
  }
}

function ownerOf(identity: Pick<Identity, 'userId'>): string {
  return identity.userId ?? '';
}
