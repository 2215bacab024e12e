import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config, fixture, cli, freePort, serve, stop, stopServersAfterEach } from '../utils/cli';

// `npm test` builds first; run `npm run build` before `npx jest --selectProjects e2e`.
jest.setTimeout(30_000);
stopServersAfterEach();

describe('interlude serve', () => {
  it('listens on --host and --port, prints where, and answers /health', async () => {
    const port = await freePort();
    const { line, url } = await serve([
      '--config',
      config('echo.yml'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ]);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(line).toContain('"echo"');
    expect(line).toContain(config('echo.yml'));

    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'healthy' });

    const res = await fetch(`${url}/v1/workflow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'over HTTP' }),
    });
    expect(await res.json()).toEqual({ value: 'over HTTP' });
  });

  it('picks a free port with --port 0 and prints the one it got', async () => {
    const { url } = await serve(['--config', config('echo.yml'), '--host', '127.0.0.1', '--port', '0']);
    const port = Number(new URL(url).port);
    expect(port).toBeGreaterThan(0);
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
  });

  it('uses config/default.yml without --config, with host and port from its ${VAR:-default}s', async () => {
    const port = await freePort();
    const { line, url } = await serve([], { INTERLUDE_HOST: '127.0.0.1', INTERLUDE_PORT: String(port) });
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(line).toContain('"scripted"');
    expect(line).toContain(config('default.yml'));
    const res = await fetch(`${url}/v1/workflow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_message: 'a city break' }),
    });
    expect(await res.json()).toEqual({
      value: 'Plan for "a city break": Lisbon for three days, then Porto.',
    });
  });

  it('--host 0.0.0.0 (a container) serves clients that name it by a service name', async () => {
    const { url } = await serve(['--config', config('echo.yml'), '--host', '0.0.0.0', '--port', '0']);
    const { port } = new URL(url);
    const status = await new Promise<number | undefined>((resolve, reject) =>
      http
        .get(
          { hostname: '127.0.0.1', port, path: '/health', headers: { host: `interlude:${port}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        )
        .on('error', reject),
    );
    expect(status).toBe(200);
  });

  it('stops when sent SIGTERM', async () => {
    const { child, url } = await serve([
      '--config',
      config('echo.yml'),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
    ]);
    await stop(child);
    expect(child.signalCode === 'SIGTERM' || child.exitCode === 0).toBe(true);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('a shutdown that outlasts shutdown_grace_seconds ends with exit 1 and a line naming what held it open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-grace-'));
    const file = join(dir, 'grace.yml');
    writeFileSync(file, 'general:\n  shutdown_grace_seconds: 1\nworkflow:\n  _type: echo\n');
    const serving = await serve(['--config', file, '--host', '127.0.0.1', '--port', '0']);
    const { port } = new URL(serving.url);
    // A client that sends half a body and then nothing: the request stays in flight.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((done) => socket.once('connect', done));
    socket.write(
      `POST /v1/workflow HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"input_message": ',
    );
    await new Promise((done) => setTimeout(done, 300));
    const exited = new Promise<number | null>((done) => serving.child.once('exit', (code) => done(code)));
    const t0 = Date.now();
    serving.child.kill('SIGTERM');
    const code = await exited;
    socket.destroy();
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const stderr = serving.output().stderr;
    expect(stderr).toContain(
      'Interlude had not stopped 1 s after SIGTERM (general.shutdown_grace_seconds): exiting',
    );
    expect(stderr).toMatch(
      /reached: HTTP server closing \(waiting for its requests in flight\); HTTP port: closed, 1 connection\(s\) open; requests in flight: POST \/v1\/workflow \(\d+\.\d s\);/,
    );
  });

  it('refuses an invalid config with exit code 2', async () => {
    const res = await cli(['serve', '--config', fixture('broken.yml'), '--port', '0']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`Invalid config ${fixture('broken.yml')}:`);
  });

  describe('when it cannot listen', () => {
    let holder: Server;
    let taken: number;
    beforeEach(async () => {
      holder = createServer();
      await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
      taken = (holder.address() as { port: number }).port;
    });
    afterEach(() => new Promise<void>((done) => holder.close(() => done())));

    it('a port in use: one line saying so and how to pick another, exit 1, nothing claims it started', async () => {
      const res = await cli([
        'serve',
        '--config',
        config('echo.yml'),
        '--host',
        '127.0.0.1',
        '--port',
        String(taken),
      ]);
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `Interlude could not start: port ${taken} is in use; pass --port or set INTERLUDE_PORT\n`,
      );
      expect(res.stdout).toBe('');
    });

    it('the same when the port came from INTERLUDE_PORT, whatever port the config names', async () => {
      const res = await cli(['serve', '--config', config('echo.yml')], {
        INTERLUDE_HOST: '127.0.0.1',
        INTERLUDE_PORT: String(taken),
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `Interlude could not start: port ${taken} is in use; pass --port or set INTERLUDE_PORT\n`,
      );
    });
  });

  it('a host that is not this machine: says so and names --host, exit 1', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const res = await cli(['serve', '--config', config('echo.yml'), '--host', '192.0.2.1', '--port', '0']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'Interlude could not start: host 192.0.2.1 is not an address of this machine; pass --host (127.0.0.1: this machine only, 0.0.0.0: every interface) or set INTERLUDE_HOST\n',
    );
    expect(res.stdout).toBe('');
  });

  it('INTERLUDE_HOST and INTERLUDE_PORT are where it listens, even when the config names a port', async () => {
    const port = await freePort();
    const { url } = await serve(['--config', config('echo.yml')], {
      INTERLUDE_HOST: '127.0.0.1',
      INTERLUDE_PORT: String(port),
    });
    expect(url).toBe(`http://127.0.0.1:${port}`);
  });

  it('refuses an INTERLUDE_PORT that is not a port, with exit code 2', async () => {
    const res = await cli(['serve', '--config', config('echo.yml')], { INTERLUDE_PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe('INTERLUDE_PORT must be a port number (0-65535) (got "eighty")\n');
  });

  it('refuses a port out of range', async () => {
    const res = await cli(['serve', '--config', config('echo.yml'), '--port', '70000']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('must be a port number (0-65535)');
  });
});
