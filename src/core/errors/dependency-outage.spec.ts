import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Client, Pool } from 'pg';
import { isDependencyOutage } from './dependency-outage';

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server that accepts a connection and closes it at once (a database restarting). */
async function slammingPort(): Promise<{ port: number; close: () => void }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** A server that accepts connections and never answers (a network partition, as its clients see it). */
async function silentPort(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
  };
  return { port: (server.address() as AddressInfo).port, close };
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('isDependencyOutage', () => {
  it('is true for what the PostgreSQL client says when the server is unreachable or drops the connection', async () => {
    const refused = new Client({ host: '127.0.0.1', port: await closedPort() });
    expect(isDependencyOutage(await failureOf(refused.connect()))).toBe(true);
    const slam = await slammingPort();
    try {
      const dropped = new Client({ host: '127.0.0.1', port: slam.port });
      expect(isDependencyOutage(await failureOf(dropped.connect()))).toBe(true);
    } finally {
      slam.close();
    }
  });

  it('is true for a Redis command that could not reach Redis', async () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    redis.on('error', () => undefined);
    try {
      expect(isDependencyOutage(await failureOf(redis.get('k')))).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  it('is true for a PostgreSQL connection and a Redis command that time out on a server that never answers', async () => {
    const silent = await silentPort();
    const redis = new Redis({ host: '127.0.0.1', port: silent.port, commandTimeout: 200, lazyConnect: true });
    redis.on('error', () => undefined);
    try {
      const pool = new Pool({ host: '127.0.0.1', port: silent.port, connectionTimeoutMillis: 200 });
      expect(isDependencyOutage(await failureOf(pool.query('select 1')))).toBe(true);
      await pool.end();
      const command = await failureOf(redis.get('k'));
      expect(command).toMatchObject({ message: 'Command timed out' });
      expect(isDependencyOutage(command)).toBe(true);
    } finally {
      redis.disconnect();
      silent.close();
    }
  });

  it('is true when the outage is the cause of another error, and false for everything else', () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDependencyOutage(new Error('Cannot open the database', { cause: socket }))).toBe(true);
    expect(isDependencyOutage(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(
      true,
    );
    expect(
      isDependencyOutage(Object.assign(new Error('syntax error at or near "x"'), { code: '42601' })),
    ).toBe(false);
    expect(isDependencyOutage(new Error('Name must not be empty'))).toBe(false);
    expect(isDependencyOutage('ECONNREFUSED')).toBe(false);
  });
});
