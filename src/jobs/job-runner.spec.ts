import { randomBytes } from 'node:crypto';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { Client } from 'pg';
import { requires } from '../../test/utils/requires';
import { TcpProxy } from '../../test/utils/tcp-proxy';
import { configFrom } from '../../test/utils/test-app';
import { ServerConfig } from '../config/server-config';
import { Database } from '../db/database';
import type { ExecutionService } from '../executions/engine/execution.service';
import { JobEvents } from './job-events';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';

requires('postgres')('JobRunner while PostgreSQL is away', () => {
  const schema = `jobrunner_spec_${randomBytes(5).toString('hex')}`;
  let proxy: TcpProxy;
  let database: Database;
  let store: JobStore;
  let runner: JobRunner;
  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const url = new URL(proxy.via(process.env.DATABASE_URL!));
    url.searchParams.set('schema', schema);
    database = await Database.open(url.toString());
    store = new JobStore(database);
    const config = new ServerConfig(configFrom('workflow: { _type: echo }\n'));
    runner = new JobRunner(store, {} as ExecutionService, new JobEvents(), {} as EventEmitter2, config);
  });
  afterAll(async () => {
    proxy?.heal();
    await database?.close();
    await proxy?.close();
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it("a submitted job held back while PostgreSQL is away says why once it is back (its status body's waiting_reason)", async () => {
    const { job } = await store.insertOrGet({
      kind: 'workflow',
      jobId: 'held',
      identity: { userId: 'alice', source: 'cookie', claims: {} },
      input: { message: 'x' },
      expirySeconds: 600,
    });
    proxy.refuse();
    proxy.cut();
    runner.hold(job.id, 'alice runs her share of jobs');
    await new Promise((resolve) => setTimeout(resolve, 700));
    proxy.heal();
    const deadline = Date.now() + 10_000;
    let pause: unknown;
    while (Date.now() < deadline) {
      pause = (await store.get(job.id).catch(() => undefined))?.pause;
      if (pause) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pause).toEqual({ status: 'submitted', waiting_reason: 'alice runs her share of jobs' });
  });
});
