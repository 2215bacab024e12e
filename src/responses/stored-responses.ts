import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { SseWriter } from '../core/http/sse-writer';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ResponseObject } from './response-object';
import { ended, followResponse } from './response-follow';
import { ResponseRender } from './response-render';
import type { InputItem } from './response-request';
import { ResponsesStore, type StoredResponse } from './responses-store';

/** How long reading a response waits for the events of an execution that has stopped (they are all written). */
const SETTLE_WITHIN_MS = 5_000;

export interface InputItemsQuery {
  limit: number;
  order: 'asc' | 'desc';
  after?: string;
}

export interface InputItemList {
  object: 'list';
  data: InputItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/**
 * The stored responses as their owner reads them (`GET`, `DELETE`, `input_items`, `cancel`, re-attach):
 * another identity gets 404 for every one, as for an unknown id. Background responses this process
 * runs are followed here until they end.
 */
@Injectable()
export class StoredResponses implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Responses');
  /** Background responses followed by this process, until their end is stored. */
  private readonly followed = new Map<string, { execution: Execution; finished: Promise<void> }>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly store: ResponsesStore,
    private readonly executions: ExecutionService,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const every = Math.min(this.config.frontEnd.responses_ttl_seconds * 1000, 60_000);
    this.sweeper = setInterval(() => {
      this.store.sweep().catch((err: Error) => this.logger.warn(`Sweeping responses: ${err.message}`));
    }, every);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** `what` names the id in the 404 (`Response`, `Previous response`). */
  async owned(identity: Identity, id: string, what = 'Response'): Promise<StoredResponse> {
    const stored = await this.store.get(id);
    if (!stored || (stored.owner !== null && stored.owner !== identity.userId)) {
      throw new AppError(ErrorCode.NotFound, `${what} with id '${id}' not found.`);
    }
    return stored;
  }

  running(id: string, execution: Execution, finished: Promise<void>): void {
    this.followed.set(id, { execution, finished });
    void finished.finally(() => this.followed.delete(id));
  }

  /**
   * The response as it stands now. A background response that no process follows any more (the
   * replica that started it died, or handed its execution over) is brought up to date here from its
   * execution: once that waits for a person or has ended, the response has ended too.
   */
  async current(identity: Identity, id: string, what = 'Response'): Promise<StoredResponse> {
    const stored = await this.owned(identity, id, what);
    const status = stored.response.status;
    if ((status !== 'queued' && status !== 'in_progress') || this.followed.has(id)) return stored;
    const record = await this.executions.record(identity, stored.executionId).catch(() => undefined);
    if (!record || record.status === 'running') return stored;
    const execution = (await this.executions.attach(record)) ?? this.executions.find(stored.executionId);
    if (!execution) return stored;
    const render = new ResponseRender(stored.response, undefined, stored.prompt);
    const following = followResponse(execution, render, stored.afterSeq);
    const timer = setTimeout(following.stop, SETTLE_WITHIN_MS);
    const lastSeq = await following.ended.finally(() => clearTimeout(timer));
    if (!render.ended) return stored;
    const settled = ended(stored, render, lastSeq);
    await this.store.put(settled);
    return settled;
  }

  async inputItems(identity: Identity, id: string, query: InputItemsQuery): Promise<InputItemList> {
    const stored = await this.owned(identity, id);
    let items = query.order === 'asc' ? stored.input : [...stored.input].reverse();
    if (query.after !== undefined) {
      const at = items.findIndex((item) => item.id === query.after);
      items = at < 0 ? [] : items.slice(at + 1);
    }
    const data = items.slice(0, query.limit);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: items.length > data.length,
    };
  }

  async delete(
    identity: Identity,
    id: string,
  ): Promise<{ id: string; object: 'response.deleted'; deleted: true }> {
    await this.owned(identity, id);
    await this.store.delete(id);
    return { id, object: 'response.deleted', deleted: true };
  }

  /** Stops a background response's workflow; the response ends `cancelled`. */
  async cancel(identity: Identity, id: string): Promise<ResponseObject> {
    const stored = await this.current(identity, id);
    if (!stored.response.background) {
      throw new AppError(
        ErrorCode.BadRequest,
        'Only responses created with background: true can be cancelled.',
      );
    }
    if (stored.response.status !== 'queued' && stored.response.status !== 'in_progress')
      return stored.response;
    try {
      await this.executions.cancel(identity, stored.executionId);
    } catch (err) {
      if (!(err instanceof AppError && err.code === ErrorCode.Conflict)) throw err;
    }
    const here = this.followed.get(id);
    if (here) {
      await here.finished;
      return (await this.owned(identity, id)).response;
    }
    // Followed by another replica (or by none any more): the record says so itself.
    const cancelled: StoredResponse = { ...stored, response: { ...stored.response, status: 'cancelled' } };
    await this.store.put(cancelled);
    return cancelled.response;
  }

  /**
   * `GET …/{id}?stream=true`: the response's stream again, from its execution's events (the same
   * events, numbers and item ids), each event after `startingAfter` once.
   */
  async stream(identity: Identity, id: string, startingAfter: number, res: Response): Promise<void> {
    const stored = await this.owned(identity, id);
    const record = await this.executions.record(identity, stored.executionId).catch(() => undefined);
    const execution =
      this.executions.find(stored.executionId) ?? (record && (await this.executions.attach(record)));
    if (!execution) {
      throw new AppError(ErrorCode.NotFound, `The events of response '${id}' are no longer available.`);
    }
    const writer = new SseWriter(res, this.config.frontEnd.sse_keepalive_seconds * 1000);
    writer.open({ 'X-Execution-Id': execution.id });
    const base = stored.response;
    const render = new ResponseRender(
      base,
      (event) => {
        if (event.sequence_number > startingAfter) writer.event(event.type, event);
      },
      stored.prompt,
    );
    render.open();
    const following = followResponse(execution, render, stored.afterSeq);
    writer.onDisconnect(following.stop);
    await following.ended;
    writer.end();
  }
}
