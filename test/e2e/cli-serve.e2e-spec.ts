import http from 'node:http';
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

  it('refuses an invalid config with exit code 2', async () => {
    const res = await cli(['serve', '--config', fixture('broken.yml'), '--port', '0']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`Invalid config ${fixture('broken.yml')}:`);
  });

  it('refuses a port out of range', async () => {
    const res = await cli(['serve', '--config', config('echo.yml'), '--port', '70000']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('must be a port number (0-65535)');
  });
});
