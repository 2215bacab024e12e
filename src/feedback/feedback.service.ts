import { Injectable } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { isAdmin } from '../core/identity/admins';
import type { Identity } from '../core/identity/identity';
import { Database } from '../db/database';
import { isoTimestamp } from '../db/tables';
import { TraceOwners } from '../executions/trace-owners';
import { FeedbackWebhook } from './feedback-webhook';

/** One feedback as stored, listed and forwarded. */
export interface FeedbackItem {
  observability_trace_id: string;
  reaction_type: string | null;
  comment: string | null;
  user_id: string | null;
  /** ISO 8601, UTC. */
  created_at: string;
}

export interface NewFeedback {
  observability_trace_id: string;
  reaction_type?: string | null;
  comment?: string | null;
}

const orNull = (value: string | null | undefined): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

export interface FeedbackQuery {
  observability_trace_id: string;
  user_id?: string;
}

/**
 * Reactions and comments on answers, by observability trace id, kept in the Database. A trace produced
 * for an identified user is theirs: only they and the admins post on it and read it. Anonymous and
 * unknown traces take anyone's feedback, as NeMo Agent Toolkit does; everyone reads only their own.
 */
@Injectable()
export class FeedbackService {
  constructor(
    private readonly database: Database,
    private readonly webhook: FeedbackWebhook,
    private readonly owners: TraceOwners,
    private readonly config: ServerConfig,
  ) {}

  /** Stores the feedback and forwards it to the webhook, if any; 404 on another user's trace. */
  async add(identity: Identity, feedback: NewFeedback): Promise<FeedbackItem> {
    if (!(await this.mayUse(identity, feedback.observability_trace_id))) {
      // 404, never 403, as for executions: a trace id names nothing to someone it does not belong to.
      throw new AppError(ErrorCode.NotFound, `Trace ${feedback.observability_trace_id} not found`);
    }
    const item: FeedbackItem = {
      observability_trace_id: feedback.observability_trace_id,
      reaction_type: orNull(feedback.reaction_type),
      comment: orNull(feedback.comment),
      user_id: identity.userId,
      created_at: new Date().toISOString(),
    };
    await this.database.db.insertInto('feedback').values(item).execute();
    this.webhook.forward(item);
    return item;
  }

  /**
   * The feedback on one trace the caller may see, oldest first: an admin's, everyone's (or `user_id`'s);
   * anyone else's, their own (anonymous callers: the anonymous feedback of traces no user owns).
   */
  async list(identity: Identity, query: FeedbackQuery): Promise<FeedbackItem[]> {
    const traceId = query.observability_trace_id;
    let select = this.database.db
      .selectFrom('feedback')
      .select(['observability_trace_id', 'reaction_type', 'comment', 'user_id', 'created_at'])
      .where('observability_trace_id', '=', traceId);
    if (this.isAdmin(identity)) {
      if (query.user_id) select = select.where('user_id', '=', query.user_id);
    } else {
      if (!(await this.mayUse(identity, traceId))) return [];
      if (query.user_id !== undefined && query.user_id !== identity.userId) return [];
      select =
        identity.userId === null
          ? select.where('user_id', 'is', null)
          : select.where('user_id', '=', identity.userId);
    }
    const rows = await select.orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => ({ ...row, created_at: isoTimestamp(row.created_at) }));
  }

  private isAdmin(identity: Identity): boolean {
    return isAdmin(identity, this.config.general.auth.admin);
  }

  private async mayUse(identity: Identity, traceId: string): Promise<boolean> {
    if (this.isAdmin(identity)) return true;
    const owner = await this.owners.ownerOf(traceId);
    return owner === undefined || owner === identity.userId;
  }
}
