import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';

/** A push-notification config as stored (A2A's `TaskPushNotificationConfig` without tenant and task). */
export interface StoredPushConfig {
  id: string;
  url: string;
  token: string;
  authentication?: { scheme: string; credentials: string };
}

/** One completed task of a context: the user's text that started it, and its answer. */
export interface ContextTurn {
  taskId: string;
  user: string;
  answer: string;
}

/** At most this many push-notification configs per task. */
export const MAX_PUSH_CONFIGS = 5;
/** A context remembers its last this many tasks (older turns drop out of the history). */
export const MAX_CONTEXT_TURNS = 25;
/** A context is forgotten this long after its last task started or finished. */
export const CONTEXT_TTL_MS = 24 * 3600 * 1000;
/** The memory store holds at most this many contexts (the least recently used one makes room). */
export const MAX_MEMORY_CONTEXTS = 10_000;
const SWEEP_EVERY_MS = 5 * 60 * 1000;

/**
 * What the A2A face keeps beside the executions: each context's turns (by owner, so another identity's
 * same `contextId` is another context) and each task's push-notification configs. A port (abstract
 * class, also the DI token): memory for one process, PostgreSQL for replicas (`general.executions.store`).
 */
export abstract class A2aTaskStore implements OnModuleInit, OnModuleDestroy {
  private sweeper?: NodeJS.Timeout;

  /** The context's turns, oldest first. */
  abstract turns(owner: string, contextId: string): Promise<ContextTurn[]>;
  /** Adds a completed task to its context (the oldest turns beyond `MAX_CONTEXT_TURNS` drop out). */
  abstract addTurn(owner: string, contextId: string, turn: ContextTurn): Promise<void>;

  /**
   * Whether a config's secrets (its credentials and token) may be kept: the shared store keeps them
   * sealed, and cannot without a key.
   */
  get keepsSecrets(): boolean {
    return true;
  }

  abstract pushConfigs(taskId: string): Promise<StoredPushConfig[]>;
  /** Adds or (same id) replaces a config; false when the task already has `MAX_PUSH_CONFIGS` others. */
  abstract savePushConfig(taskId: string, config: StoredPushConfig): Promise<boolean>;
  /** False when the task has no config with that id. */
  abstract deletePushConfig(taskId: string, id: string): Promise<boolean>;

  /** Forgets contexts idle past `CONTEXT_TTL_MS` and the configs of tasks whose record is gone. */
  abstract sweep(now: number): Promise<void>;

  onModuleInit(): void {
    this.sweeper = setInterval(() => {
      this.sweep(Date.now()).catch(() => undefined); // the next sweep tries again
    }, SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}

/** Whether a config list has room for `config` (a config with its id is replaced, not added). */
export function withConfig(
  configs: StoredPushConfig[],
  config: StoredPushConfig,
): StoredPushConfig[] | false {
  const others = configs.filter((c) => c.id !== config.id);
  return others.length >= MAX_PUSH_CONFIGS ? false : [...others, config];
}

/** A context's turns with one more (bounded). */
export function withTurn(turns: ContextTurn[], turn: ContextTurn): ContextTurn[] {
  return [...turns.filter((t) => t.taskId !== turn.taskId), turn].slice(-MAX_CONTEXT_TURNS);
}

interface MemoryContext {
  turns: ContextTurn[];
  touchedAt: number;
}

/** The store of one process (`general.executions.store: memory`). */
export class MemoryA2aTaskStore extends A2aTaskStore {
  private readonly contexts = new Map<string, MemoryContext>();
  private readonly configs = new Map<string, StoredPushConfig[]>();

  constructor(
    /** Whether a task's execution record still exists (its configs are dropped once it is gone). */
    private readonly taskExists: (taskId: string) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async turns(owner: string, contextId: string): Promise<ContextTurn[]> {
    return [...(this.contexts.get(keyOf(owner, contextId))?.turns ?? [])];
  }

  async addTurn(owner: string, contextId: string, turn: ContextTurn): Promise<void> {
    const key = keyOf(owner, contextId);
    const turns = withTurn(this.contexts.get(key)?.turns ?? [], turn);
    // Maps iterate in insertion order: set again, the context becomes the most recently used.
    this.contexts.delete(key);
    this.contexts.set(key, { turns, touchedAt: this.now() });
    if (this.contexts.size > MAX_MEMORY_CONTEXTS) this.contexts.delete(this.contexts.keys().next().value!);
  }

  async pushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return [...(this.configs.get(taskId) ?? [])];
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<boolean> {
    const next = withConfig(this.configs.get(taskId) ?? [], config);
    if (next) this.configs.set(taskId, next);
    return next !== false;
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    const configs = this.configs.get(taskId) ?? [];
    const kept = configs.filter((c) => c.id !== id);
    if (kept.length === configs.length) return false;
    if (kept.length === 0) this.configs.delete(taskId);
    else this.configs.set(taskId, kept);
    return true;
  }

  async sweep(now: number): Promise<void> {
    for (const [key, context] of this.contexts) {
      if (context.touchedAt + CONTEXT_TTL_MS <= now) this.contexts.delete(key);
    }
    for (const taskId of [...this.configs.keys()]) {
      if (!(await this.taskExists(taskId))) this.configs.delete(taskId);
    }
  }
}

/** Owner ids (uuids, `''` for anonymous callers) hold no NUL, so the key splits back into its pair. */
function keyOf(owner: string, contextId: string): string {
  return `${owner}\u0000${contextId}`;
}
