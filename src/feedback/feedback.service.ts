import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { isAdmin } from '../core/identity/admins';
import type { Identity } from '../core/identity/identity';
import { Database } from '../db/database';
import { isoTimestamp } from '../db/tables';
import { TraceOwners } from '../executions/store/trace-owners';
import { FeedbackRecorded } from './feedback-recorded';

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

/** Without a trace id: one page of the caller's own feedback (an admin's: everyone's or `user_id`'s). */
export interface FeedbackPageQuery {
  user_id?: string;
  limit: number;
  /** Items older than this one (from the cursor). */
  after?: number;
}

export interface FeedbackPage {
  items: FeedbackItem[];
  next_cursor: string | null;
}

/** Longer than any cursor handed out; a longer one is refused before it is decoded. */
export const CURSOR_MAX_LENGTH = 64;

/** A page ends at an item: the next starts below its id (ids grow with each insert, on every replica). */
export const cursorFor = (id: number): string => Buffer.from(`f:${id}`).toString('base64url');

/** The id a cursor stands for, or undefined when this server did not hand it out. */
export function cursorId(cursor: string): number | undefined {
  if (cursor.length > CURSOR_MAX_LENGTH) return undefined;
  const match = /^f:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
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
    private readonly bus: EventEmitter2,
    private readonly owners: TraceOwners,
    private readonly config: ServerConfig,
  ) {}

  /** Stores the feedback and announces it (the webhook forwards it); 404 on another user's trace. */
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
    this.bus.emit(FeedbackRecorded.event, new FeedbackRecorded(item));
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

  /**
   * The caller's own feedback on every trace, newest first, `limit` at a time; an admin's is everyone's
   * (or `user_id`'s). An anonymous caller gets none: anonymous feedback carries no sender, so "their
   * own" would be every anonymous caller's.
   */
  async page(identity: Identity, query: FeedbackPageQuery): Promise<FeedbackPage> {
    const admin = this.isAdmin(identity);
    const sender = admin ? query.user_id : identity.userId;
    if (sender === null || (!admin && query.user_id !== undefined && query.user_id !== sender)) {
      return { items: [], next_cursor: null };
    }
    let select = this.database.db
      .selectFrom('feedback')
      .select(['id', 'observability_trace_id', 'reaction_type', 'comment', 'user_id', 'created_at']);
    if (sender !== undefined) select = select.where('user_id', '=', sender);
    if (query.after !== undefined) select = select.where('id', '<', query.after);
    // One more than asked tells whether there is a next page.
    const rows = await select
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(({ id: _id, ...row }) => ({ ...row, created_at: isoTimestamp(row.created_at) })),
      next_cursor: rows.length > query.limit && last ? cursorFor(last.id) : null,
    };
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
