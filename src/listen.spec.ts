import { listenAddress, listenFailure } from './listen';

const fail = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
const at = (host: string, port: number) => ({ host, port });

describe('why the server could not listen, as a person reads it', () => {
  it('a port in use names the port and the two ways to pick another', () => {
    expect(listenFailure(fail('EADDRINUSE'), at('localhost', 8000))).toBe(
      'port 8000 is in use; pass --port or set INTERLUDE_PORT',
    );
  });

  it('a privileged port says why, and what to pass instead', () => {
    expect(listenFailure(fail('EACCES'), at('0.0.0.0', 80))).toBe(
      'port 80 needs privileges (ports below 1024 do); pass --port with 1024 or above, or set INTERLUDE_PORT',
    );
    expect(listenFailure(fail('EACCES'), at('0.0.0.0', 8000))).toBe(
      'not allowed to listen on port 8000; pass --port or set INTERLUDE_PORT',
    );
  });

  it('a host that does not resolve, or is not this machine, names the host and --host', () => {
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
      expect(listenFailure(fail(code), at('nosuch.invalid', 8000))).toBe(
        'host "nosuch.invalid" does not resolve to an address; pass --host (127.0.0.1: this machine only, 0.0.0.0: every interface) or set INTERLUDE_HOST',
      );
    }
    expect(listenFailure(fail('EADDRNOTAVAIL'), at('192.0.2.1', 8000))).toMatch(
      /^host 192\.0\.2\.1 is not an address of this machine; pass --host/,
    );
  });

  it('anything else keeps its own message', () => {
    expect(listenFailure(new Error('something odd'), at('localhost', 8000))).toBe(
      'cannot listen on localhost:8000: something odd',
    );
  });
});

describe('where serve listens', () => {
  const config = at('localhost', 8000);

  it('flags first, then INTERLUDE_HOST / INTERLUDE_PORT, then the config', () => {
    const env = { INTERLUDE_HOST: '0.0.0.0', INTERLUDE_PORT: '9000' };
    expect(listenAddress({ host: '127.0.0.1', port: 0 }, config, env)).toEqual(at('127.0.0.1', 0));
    expect(listenAddress({}, config, env)).toEqual(at('0.0.0.0', 9000));
    expect(listenAddress({}, config, {})).toEqual(config);
  });

  it('an empty variable counts as unset, as ${VAR:-default} reads it', () => {
    expect(listenAddress({}, config, { INTERLUDE_HOST: '', INTERLUDE_PORT: '' })).toEqual(config);
  });

  it('an INTERLUDE_PORT that is not a port is refused, naming the variable', () => {
    for (const bad of ['abc', '70000', '-1', '80.5', ' ']) {
      expect(() => listenAddress({}, config, { INTERLUDE_PORT: bad })).toThrow(
        `INTERLUDE_PORT must be a port number (0-65535) (got "${bad}")`,
      );
    }
  });
});
