import { requires } from '../../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../../test/utils/replica-services';
import { TcpProxy } from '../../../test/utils/tcp-proxy';
import type { ExecutionRecord } from '../model/execution-record';
import { RecordChanges } from './record-changes';
import { RedisAudience } from '../../redis/redis-audience';
import type { BackingRedis } from '../../redis/backing-redis';
import { COPY_MS, WRITE_MS } from './record-copies';

/** What PostgreSQL holds, as each replica's `load` reads it, and how many times each read it. */
class Table {
  readonly rows = new Map<string, ExecutionRecord>();
  readonly loads: Record<string, number> = {};
  /** Each row's version, which every write of it changes (PostgreSQL's xmin). */
  private readonly written = new Map<string, number>();
  private writes = 0;

  set(id: string, status: string): void {
    this.rows.set(id, { id, status } as unknown as ExecutionRecord);
    this.written.set(id, ++this.writes);
  }

  loader(on: string, id: string) {
    return async () => {
      this.loads[on] = (this.loads[on] ?? 0) + 1;
      const record = this.rows.get(id);
      return record && { record: structuredClone(record), version: String(this.written.get(id)) };
    };
  }
}

const statusOf = (record?: Readonly<ExecutionRecord>) => record?.status;

/** A replica's RecordChanges, on its own audience of the executions (as the Redis module provides it). */
const opened = (redis: BackingRedis) => RecordChanges.open(redis, new RedisAudience(redis, 'executions'));

requires('redis')('RecordChanges: polls served from copies that every replica’s writes invalidate', () => {
  const services = new ReplicaServices();
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    proxy?.heal();
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => services.cleanup());

  /** Two replicas on one prefix; B reaches Redis through a proxy when `throughProxy`. */
  async function twoReplicas(throughProxy = false) {
    const prefix = services.newPrefix();
    let bUrl = services.redisUrl;
    if (throughProxy) {
      const url = new URL(services.redisUrl);
      proxy = await TcpProxy.start(url.hostname, Number(url.port || 6379));
      bUrl = proxy.via(services.redisUrl);
    }
    const a = await opened(await services.redis(prefix));
    const b = await opened(await services.redis(prefix, bUrl));
    // Nothing is kept for WRITE_MS after a replica starts listening (a write begun before may be under way).
    await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
    return { a, b, prefix, table: new Table() };
  }

  it('a record polled again is served from memory; a write on another replica is seen by the next poll', async () => {
    const { a, b, table } = await twoReplicas();
    table.set('e1', 'waiting_for_input');
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('waiting_for_input');
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('waiting_for_input');
    expect(table.loads.A).toBe(1);

    await b.write('e1', async (announced) => {
      await announced();
      table.set('e1', 'running');
    });
    // B's answer has returned: A's very next poll sees the change.
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('running');
    expect(table.loads.A).toBe(2);
  });

  it('while a write on another replica may be under way, polls read PostgreSQL every time; copies again once it has surely ended', async () => {
    const { a, b, table } = await twoReplicas();
    table.set('e1', 'waiting_for_input');
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let running!: () => void;
    const underWay = new Promise<void>((resolve) => (running = resolve));
    const writing = b.write('e1', async (announced) => {
      await announced();
      running();
      await committed;
      table.set('e1', 'running');
    });
    // Announced: A's polls from now on know of it.
    await underWay;
    const began = performance.now();
    for (let i = 0; i < 3; i++) await a.read('e1', table.loader('A', 'e1'));
    expect(table.loads.A).toBe(3);
    commit();
    await writing;
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('running');
    // Its end is not announced (it was quick): A keeps nothing until WRITE_MS after it heard its start.
    await a.read('e1', table.loader('A', 'e1'));
    expect(table.loads.A).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, WRITE_MS + 100 - (performance.now() - began)));
    await a.read('e1', table.loader('A', 'e1'));
    await a.read('e1', table.loader('A', 'e1'));
    expect(table.loads.A).toBe(6);
  });

  it(`a write that commits more than ${WRITE_MS / 2} ms after its announcement announces its end: copies again at once after it`, async () => {
    const { a, b, table } = await twoReplicas();
    table.set('e1', 'waiting_for_input');
    // A polled the record before: it hears of the write as it begins and as it ends.
    await a.read('e1', table.loader('A', 'e1'));
    await b.write('e1', async (announced) => {
      await announced();
      await new Promise((resolve) => setTimeout(resolve, WRITE_MS / 2 + 50));
      table.set('e1', 'running');
    });
    const ended = performance.now();
    const servedFromCopy = async () => {
      const before = table.loads.A ?? 0;
      expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('running');
      return table.loads.A === before;
    };
    // Once its end notice is in (published before B answered), A keeps what it reads again; without
    // it, not before WRITE_MS after A heard its start (about WRITE_MS / 2 from now).
    while (!(await servedFromCopy())) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(performance.now() - ended).toBeLessThan(WRITE_MS / 4);
  });

  it('a replica’s own write drops its own copy at once', async () => {
    const { a, table } = await twoReplicas();
    table.set('e1', 'waiting_for_input');
    await a.read('e1', table.loader('A', 'e1'));
    await a.write('e1', async (announced) => {
      await announced();
      table.set('e1', 'completed');
    });
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('completed');
  });

  it('tells every other replica that read or wrote the record of each write, with the text it writes unless that is large; a write that commits nothing is not announced', async () => {
    const { a, b, table } = await twoReplicas();
    const heardOnA: [string, string | undefined][] = [];
    const heardOnB: string[] = [];
    a.onChangedElsewhere((id, text) => heardOnA.push([id, text]));
    b.onChangedElsewhere((id) => heardOnB.push(id));
    for (const id of ['e1', 'e2', 'e3', 'e4']) {
      table.set(id, 'waiting_for_input');
      await a.read(id, table.loader('A', id));
    }
    await b.write('e1', (announce) => announce('{"id":"e1"}'));
    await b.write('e2', (announce) => announce('x'.repeat(64 * 1024)));
    await b.write('e3', async () => 'refused by the state machine: nothing written');
    await b.write('e4', (announce) => announce());
    while (heardOnA.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heardOnA).toEqual([
      ['e1', '{"id":"e1"}'],
      ['e2', undefined],
      ['e4', undefined],
    ]);
    expect(heardOnB).toEqual([]);
  });

  it('a replica that never read a record is not woken by its writes, whether or not it wrote it; one that read it is', async () => {
    const { a, b, prefix, table } = await twoReplicas();
    const redis = await services.redis(prefix);
    const c = await opened(redis);
    const received: string[] = [];
    const listener = await services.redis(prefix);
    await listener.subscribe(`${prefix}record-changes`, (message) => received.push(message));
    table.set('e1', 'waiting_for_input');
    await a.read('e1', table.loader('A', 'e1'));
    const heardOnA: string[] = [];
    const heardOnB: string[] = [];
    const heardOnC: string[] = [];
    a.onChangedElsewhere((id) => heardOnA.push(id));
    b.onChangedElsewhere((id) => heardOnB.push(id));
    c.onChangedElsewhere((id) => heardOnC.push(id));
    // C answers, say: A, which read the record, is told.
    await c.write('e1', (announce) => announce('{"id":"e1"}'));
    // Writing it did not make C one of its audience: A's next write is not announced to C.
    await a.write('e1', (announce) => announce('{"id":"e1","again":true}'));
    while (heardOnA.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // Everything published before now has reached C: it heard nothing, nor did the channel every replica hears.
    expect(await redis.delivered()).toBe(true);
    expect(await listener.delivered()).toBe(true);
    expect(heardOnC).toEqual([]);
    expect(received).toEqual([]);
    expect(heardOnA).toEqual(['e1']);
    // B never touched it (B's subscriber connection is another: given the time C's took, and more).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heardOnB).toEqual([]);
  });

  it('records gone (expired) on one replica are gone on the next poll of every other', async () => {
    const { a, b, table } = await twoReplicas();
    table.set('e1', 'completed');
    await a.read('e1', table.loader('A', 'e1'));
    table.rows.delete('e1');
    await b.gone(['e1']);
    expect(await a.read('e1', table.loader('A', 'e1'))).toBeUndefined();
  });

  it(`a replica that hears Redis late (its PING answered past the bound) reads PostgreSQL rather than serve a copy`, async () => {
    const { a, b, table } = await twoReplicas(true);
    table.set('e1', 'waiting_for_input');
    // B serves its copy (once its join of the record's audience and its PING came back in time: on a
    // loaded machine the first read may keep nothing).
    await waitFor('B to serve its copy', async () => {
      const before = table.loads.B ?? 0;
      await b.read('e1', table.loader('B', 'e1'));
      return table.loads.B === before ? true : undefined;
    });
    const loads = table.loads.B;
    proxy!.delay(200);
    await a.write('e1', async (announced) => {
      await announced();
      table.set('e1', 'running');
    });
    // A's start notice reaches B 200 ms late; B cannot tell it has heard everything, so it reads.
    expect(statusOf(await b.read('e1', table.loader('B', 'e1')))).toBe('running');
    expect(table.loads.B).toBe(loads + 1);
  });

  it('a replica that hears Redis late but within the bound waits for what was sent before the poll, and serves the change', async () => {
    const { a, b, table } = await twoReplicas(true);
    table.set('e1', 'waiting_for_input');
    await b.read('e1', table.loader('B', 'e1'));
    proxy!.delay(60);
    await a.write('e1', async (announced) => {
      await announced();
      table.set('e1', 'running');
    });
    expect(statusOf(await b.read('e1', table.loader('B', 'e1')))).toBe('running');
  });

  it(`a write whose announcement cannot reach Redis still commits, and answers only ${COPY_MS} ms after (every copy elsewhere has expired)`, async () => {
    const { a, b, table } = await twoReplicas(true);
    table.set('e1', 'waiting_for_input');
    await a.read('e1', table.loader('A', 'e1'));
    proxy!.hang();
    const started = performance.now();
    await b.write('e1', async (announced) => {
      await announced();
      table.set('e1', 'running');
    });
    const took = performance.now() - started;
    expect(table.rows.get('e1')?.status).toBe('running');
    expect(took).toBeGreaterThanOrEqual(COPY_MS - 5);
    // A never heard of it, and its copy has expired: it reads the change.
    expect(statusOf(await a.read('e1', table.loader('A', 'e1')))).toBe('running');
  });

  it('a replica whose Redis hangs (a partition) answers a first poll of a record from PostgreSQL within 250 ms, and keeps nothing of it', async () => {
    const { b, table } = await twoReplicas(true);
    table.set('e1', 'waiting_for_input');
    proxy!.hang();
    const started = performance.now();
    expect(statusOf(await b.read('e1', table.loader('B', 'e1')))).toBe('waiting_for_input');
    expect(performance.now() - started).toBeLessThan(400);
    await b.read('e1', table.loader('B', 'e1'));
    expect(table.loads.B).toBe(2);
  });

  it('a replica whose subscriber connection is lost serves no copy until it is back and a write could have ended', async () => {
    const { b, table } = await twoReplicas(true);
    table.set('e1', 'waiting_for_input');
    await b.read('e1', table.loader('B', 'e1'));
    proxy!.cut();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await b.read('e1', table.loader('B', 'e1'));
    expect(table.loads.B).toBe(2);
    proxy!.heal();
    // Back (ioredis reconnects within a second): still nothing kept until WRITE_MS after.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await b.read('e1', table.loader('B', 'e1'));
    await b.read('e1', table.loader('B', 'e1'));
    expect(table.loads.B).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
    await b.read('e1', table.loader('B', 'e1'));
    await b.read('e1', table.loader('B', 'e1'));
    expect(table.loads.B).toBe(5);
  });
});
