import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import type { ExecutionStatus } from '../executions/model/execution-state';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { ExecutionStore } from '../executions/store/execution.store';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { PROMPT_GRACE_SECONDS } from '../runtime/prompts';
import type { ExecutionListDto, WaitingExecutionDto } from './dto/execution-list.dto';
import { statusBody } from './execution-status';

/** The statuses the list answers for: an execution waiting for a person. */
export const LISTABLE_STATUSES = ['interaction_required', 'oauth_required'] as const;
export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;
const MAX_CURSOR_LENGTH = 512;

export interface ListQuery {
  status?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

const badRequest = (detail: string) => new AppError(ErrorCode.BadRequest, detail);

function statusesOf(raw: string | undefined): ExecutionStatus[] {
  if (raw === undefined || raw === '') return [...LISTABLE_STATUSES];
  const wanted = raw.split(/[|,]/).map((s) => s.trim());
  for (const s of wanted) {
    if (!(LISTABLE_STATUSES as readonly string[]).includes(s)) {
      throw badRequest(`status must be ${LISTABLE_STATUSES.join(' or ')} (or both, separated by | or ,)`);
    }
  }
  return wanted as ExecutionStatus[];
}

function limitOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIST_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw badRequest(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  return limit;
}

/** The cursor is the last item's `(createdAt, id)`, opaque to clients. */
function cursorOf(raw: string | undefined): { createdAt: number; id: string } | undefined {
  if (raw === undefined || raw === '') return undefined;
  const invalid = () => badRequest('cursor is not one this server handed out');
  if (raw.length > MAX_CURSOR_LENGTH) throw invalid();
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const createdAt = Number(text.slice(0, colon));
  const id = text.slice(colon + 1);
  if (colon < 1 || !Number.isSafeInteger(createdAt) || id === '') throw invalid();
  return { createdAt, id };
}

/**
 * When the open prompt stops taking an answer, as its asker sees it: the record's deadline less the
 * grace the engine adds (the prompt's `timeout`, else the server's default, after it was asked); null
 * when it waits for ever.
 */
function promptExpiry(record: ExecutionRecord): number | null {
  const open = record.openInteractionId ? record.interactions[record.openInteractionId] : undefined;
  if (record.status !== 'interaction_required' || !open || open.deadline === null) return null;
  return open.deadline - PROMPT_GRACE_SECONDS * 1000;
}

const cursorFor = (createdAt: number, id: string) => Buffer.from(`${createdAt}:${id}`).toString('base64url');

/**
 * `GET /executions`: the caller's executions waiting for a person, whatever face started them (the
 * approvals inbox). Only an identified caller has any: an anonymous execution is reachable by its id
 * alone, so it is never listed.
 */
@Injectable()
export class ExecutionList {
  private readonly urls: ExecutionUrls;

  constructor(
    private readonly store: ExecutionStore,
    config: ServerConfig,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
  }

  async list(identity: Identity, query: ListQuery): Promise<ExecutionListDto> {
    const one = (name: keyof ListQuery): string | undefined => {
      const value = query[name];
      if (value === undefined || typeof value === 'string') return value;
      throw badRequest(`${name} must be given once`);
    };
    const statuses = statusesOf(one('status'));
    const limit = limitOf(one('limit'));
    const after = cursorOf(one('cursor'));
    if (identity.userId === null) return { data: [], next_cursor: null };
    // One more than asked tells whether there is a next page.
    const records = await this.store.listOwned(identity.userId, { statuses, limit: limit + 1, after });
    const page = records.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((record) => {
        const item = {
          ...statusBody(record, this.urls),
          status_url: this.urls.status(record.id),
          created_at: new Date(record.createdAt).toISOString(),
          updated_at: new Date(record.updatedAt).toISOString(),
        } as WaitingExecutionDto;
        const expiresAt = promptExpiry(record);
        if (expiresAt !== null) item.expires_at = new Date(expiresAt).toISOString();
        return item;
      }),
      next_cursor: records.length > limit && last ? cursorFor(last.createdAt, last.id) : null,
    };
  }
}
