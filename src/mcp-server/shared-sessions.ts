import { Injectable } from '@nestjs/common';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { BackingRedis } from '../redis/backing-redis';
import { RedisEventStore } from './redis-event-store';

/** What another replica needs to serve a session: whose it is and how it was opened. */
export interface SharedSession {
  owner: string | null;
  /** The client's `initialize` request, replayed to open the session on another replica. */
  initialize: JSONRPCRequest;
}

/** An elicitation asked in a session: the prompt it stands for, answered by whichever replica hears it. */
export interface SharedElicitation {
  executionId: string;
  interactionId: string;
}

/**
 * The sessions of every replica (`general.executions.redis_url`): a session opened on one replica is
 * served by any, and an elicitation's answer reaches its prompt from any. Nothing is shared without
 * Redis (one process holds all sessions then). Keys expire when unused for `idleSeconds`.
 */
@Injectable()
export class SharedSessions {
  constructor(private readonly redis: BackingRedis) {}

  get enabled(): boolean {
    return this.redis.configured;
  }

  private key(kind: string, id: string): string {
    return `${this.redis.prefix}mcp:${kind}:${id}`;
  }

  /** Where the session's SSE messages are kept for a resume on any replica; none without Redis. */
  events(id: string, idleSeconds: number): RedisEventStore | undefined {
    return this.enabled ? new RedisEventStore(this.redis, id, idleSeconds) : undefined;
  }

  async save(id: string, session: SharedSession, idleSeconds: number): Promise<void> {
    if (!this.enabled) return;
    await this.redis.client.set(this.key('session', id), JSON.stringify(session), 'EX', idleSeconds);
  }

  async load(id: string): Promise<SharedSession | undefined> {
    if (!this.enabled) return undefined;
    const value = await this.redis.client.get(this.key('session', id));
    return value === null ? undefined : (JSON.parse(value) as SharedSession);
  }

  /** Keeps a used session alive; false when it is gone (ended on another replica, or expired). */
  async touch(id: string, idleSeconds: number): Promise<boolean> {
    if (!this.enabled) return true;
    return (await this.redis.client.expire(this.key('session', id), idleSeconds)) === 1;
  }

  async remove(id: string): Promise<void> {
    if (!this.enabled) return;
    await this.redis.client.del(this.key('session', id));
  }

  async saveElicitation(
    sessionId: string,
    requestId: string,
    elicitation: SharedElicitation,
    ttlSeconds: number,
  ): Promise<void> {
    if (!this.enabled) return;
    const key = this.key('elicitation', `${sessionId}:${requestId}`);
    await this.redis.client.set(key, JSON.stringify(elicitation), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  /** The elicitation a response answers, once: a second answer to it finds nothing. */
  async takeElicitation(sessionId: string, requestId: string): Promise<SharedElicitation | undefined> {
    if (!this.enabled) return undefined;
    const value = await this.redis.client.getdel(this.key('elicitation', `${sessionId}:${requestId}`));
    return value === null ? undefined : (JSON.parse(value) as SharedElicitation);
  }
}
