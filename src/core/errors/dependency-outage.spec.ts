import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Client } from 'pg';
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
