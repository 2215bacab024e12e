import type { ChainableCommander, Redis } from 'ioredis';

type Command = [name: string, ...args: (string | number)[]];

/**
 * The Redis commands of a log's writes that go together (one turn's, or a held log's once published):
 * gathered here in their order, then sent in one pipeline, as one transaction (MULTI/EXEC) when they
 * append two entries or more, so that a replica following the log (XREAD BLOCK) gets those entries in
 * one reply: Redis answers a blocked read after the first XADD of a pipeline, after the EXEC of a
 * transaction. One entry goes as it always did, with no MULTI and EXEC around it.
 */
export class LogWrites {
  private readonly commands: Command[] = [];
  private entries = 0;

  xadd(key: string, id: string, field: string, value: string): void {
    this.entries++;
    this.commands.push(['xadd', key, id, field, value]);
  }

  expire(key: string, seconds: number): void {
    this.commands.push(['expire', key, seconds]);
  }

  zadd(key: string, ...scoresAndMembers: (string | number)[]): void {
    this.commands.push(['zadd', key, ...scoresAndMembers]);
  }

  zremrangebyrank(key: string, start: number, stop: number): void {
    this.commands.push(['zremrangebyrank', key, start, stop]);
  }

  xtrim(key: string, ...args: (string | number)[]): void {
    this.commands.push(['xtrim', key, ...args]);
  }

  /** A script defined on the connection these go out on (`BackingRedis.script`), by its name. */
  script(name: string, ...args: (string | number)[]): void {
    this.commands.push([name, ...args]);
  }

  del(...keys: string[]): void {
    this.commands.push(['del', ...keys]);
  }

  /** The commands as one pipeline of `redis`, or one transaction, ready to exec. */
  on(redis: Redis): ChainableCommander {
    return this.entries > 1 ? redis.multi(this.commands) : redis.pipeline(this.commands);
  }
}
