import { Injectable } from '@nestjs/common';
import type { Identity } from '../core/identity/identity';
import { Database } from '../db/database';
import { isoTimestamp } from '../db/tables';
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

/** Reactions and comments on answers, by observability trace id, kept in the Database. */
@Injectable()
export class FeedbackService {
  constructor(
    private readonly database: Database,
    private readonly webhook: FeedbackWebhook,
  ) {}

  /** Stores the feedback (the trace need not be known here) and forwards it to the webhook, if any. */
  async add(identity: Identity, feedback: NewFeedback): Promise<FeedbackItem> {
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

  /** Every feedback on one trace, oldest first. */
  async listForTrace(observabilityTraceId: string): Promise<FeedbackItem[]> {
    const rows = await this.database.db
      .selectFrom('feedback')
      .select(['observability_trace_id', 'reaction_type', 'comment', 'user_id', 'created_at'])
      .where('observability_trace_id', '=', observabilityTraceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...row, created_at: isoTimestamp(row.created_at) }));
  }
}
