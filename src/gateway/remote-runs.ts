import { Injectable, Logger } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import type { Execution } from '../executions/model/execution';
import { ExecutionService } from '../executions/engine/execution.service';
import { isTerminalStatus } from '../executions/model/execution-state';
import { StepAdaptor } from '../runtime/step-adaptor';
import { ConversationLinks, type ConversationLink, type LinkProgress } from './conversation-links';
import { ConversationRuns } from './conversation-runs';
import { remoteRunOf } from './remote-waits';
import { ReplyMessages } from './ws-messages';
import { WsRun } from './ws-run';

const logger = new Logger('WebSocket');

/**
 * The conversation links of identified users' runs, and the takeover of a run another replica runs:
 * a connection opened here with `?conversation_id=` gets its pending prompt with the time left, can
 * answer it, and sees the rest of the run, read from the shared event log. When the links' store is
 * back after it was lost (a Redis restarted empty), this replica writes again the links of the runs it
 * holds.
 */
@Injectable()
export class RemoteRuns {
  constructor(
    private readonly executions: ExecutionService,
    private readonly links: ConversationLinks,
    private readonly config: ServerConfig,
    private readonly conversations: ConversationRuns,
  ) {
    links.onReset(() => void this.restore());
  }

  /** Writes again the link of every run a reconnecting client could find here, unless one is there. */
  async restore(): Promise<number> {
    const runs = this.conversations.linked().filter((run) => !run.isEnded);
    const written = await Promise.all(
      runs.map((run) => {
        const { ownerId, conversationId } = run;
        if (ownerId === null || conversationId === null) return false;
        const link: ConversationLink = {
          executionId: run.execution.id,
          parentId: run.messages.parentId,
          schema: run.schema,
          delivered: run.shown,
          attachedAt: run.lastAttached,
        };
        return this.links.restore(ownerId, conversationId, link).catch((err: Error) => {
          logger.warn(`Could not write a conversation's run again: ${err.message}`);
          return false;
        });
      }),
    );
    const count = written.filter(Boolean).length;
    if (count > 0) logger.log(`Conversation links written again after Redis came back: ${count}`);
    return count;
  }

  /** Records the run a conversation now runs (so any replica can take it over). */
  link(execution: Execution, userId: string, conversationId: string, link: ConversationLink): void {
    // A replica following it must read its last events after it ended: its log stays for the TTL.
    if (this.links.shared) execution.expose();
    this.write(this.links.set(userId, conversationId, link));
  }

  progress(run: WsRun, progress: LinkProgress): void {
    const { ownerId, conversationId } = run;
    if (ownerId === null || conversationId === null) return;
    this.write(this.links.update(ownerId, conversationId, run.execution.id, progress));
  }

  unlink(run: WsRun): void {
    const { ownerId, conversationId } = run;
    if (ownerId === null || conversationId === null) return;
    this.write(this.links.remove(ownerId, conversationId, run.execution.id));
  }

  /** Whether a connection took the run over (on any replica) after `since`. */
  async takenOverSince(run: WsRun, since: number): Promise<boolean> {
    const { ownerId, conversationId } = run;
    if (ownerId === null || conversationId === null) return false;
    try {
      const link = await this.links.get(ownerId, conversationId);
      return link?.executionId === run.execution.id && link.attachedAt > since;
    } catch {
      return false;
    }
  }

  /**
   * The user's run in the conversation, run by another replica, as a WsRun of this one; undefined when
   * there is none still going that `identity` owns.
   */
  async takeOver(identity: Identity, conversationId: string): Promise<WsRun | undefined> {
    const userId = identity.userId;
    if (userId === null) return undefined;
    const link = await this.links.get(userId, conversationId).catch(() => undefined);
    if (!link) return undefined;
    // Read as `identity`: another user's execution is not found.
    const record = await this.executions.record(identity, link.executionId).catch(() => undefined);
    if (!record || isTerminalStatus(record.status)) return undefined;
    const execution = await this.executions.attach(record);
    if (!execution) return undefined;
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    const run = new WsRun({
      execution,
      ownerId: userId,
      schema: link.schema,
      messages: new ReplyMessages(link.parentId, conversationId),
      adaptor: new StepAdaptor(mode, custom_event_types),
      remote: remoteRunOf(record, link.delivered),
    });
    await run.caughtUp;
    return run;
  }

  private write(done: Promise<void>): void {
    done.catch((err: Error) => logger.warn(`Could not record a conversation's run: ${err.message}`));
  }
}
