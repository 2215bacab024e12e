import { BackingRedis } from '../redis/backing-redis';
import { Database } from '../db/database';
import { MemoryExecutionStore } from '../executions/store/memory-execution.store';
import { ReadinessService } from './readiness.service';

describe('ReadinessService', () => {
  let database: Database;
  let readiness: ReadinessService;
  beforeEach(async () => {
    database = await Database.open('sqlite::memory:');
    readiness = new ReadinessService(new MemoryExecutionStore(), database, BackingRedis.none());
  });
  afterEach(() => database.close());

  it('is ready while its checks pass', async () => {
    expect(await readiness.run()).toEqual({ ready: true, checks: { executions: 'ok', database: 'ok' } });
  });

  it('a failing check makes it unready, naming the check and why', async () => {
    readiness.register('broker', () => Promise.reject(new Error('gone')));
    expect(await readiness.run()).toEqual({
      ready: false,
      checks: { executions: 'ok', database: 'ok', broker: 'failed: gone' },
    });
  });

  it('once shutdown has begun (SIGTERM) it is unready at once, so load balancers send requests elsewhere', async () => {
    readiness.onModuleDestroy();
    expect(await readiness.run()).toEqual({ ready: false, checks: { shutdown: 'in progress' } });
  });
});
