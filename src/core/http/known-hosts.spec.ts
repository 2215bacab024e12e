import { hostnameOf, isHostPattern, KnownHosts, parseOrigin } from './known-hosts';

describe('parseOrigin: only scheme://host[:port] is an origin', () => {
  it.each([
    ['https://a.example.com', 'a.example.com', 'a.example.com'],
    ['http://localhost:3100', 'localhost', 'localhost:3100'],
    ['http://[::1]:8000', '::1', '[::1]:8000'],
    ['chrome-extension://abcdef', 'abcdef', 'abcdef'],
  ])('%s is one', (origin, hostname, host) => {
    expect(parseOrigin(origin)).toEqual({ origin, scheme: origin.split(':')[0], hostname, host });
  });

  it.each([
    'https://evil.test/?https://a.example.com',
    'https://a.example.com/',
    'https://a.example.com/path',
    'https://evil.test@a.example.com',
    'https://a.example.com#x',
    'HTTPS://A.EXAMPLE.COM',
    'https://a.example.com:99999',
    'https://[not-v6]',
    'null',
    '',
    ' https://a.example.com',
  ])('%j is not', (value) => {
    expect(parseOrigin(value)).toBeUndefined();
  });
});

describe('hostnameOf: the name a Host header carries', () => {
  it.each([
    ['localhost:8000', 'localhost'],
    ['Example.COM.', 'example.com'],
    ['[::1]:8000', '::1'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s names %s', (header, name) => expect(hostnameOf(header)).toBe(name));

  it.each(['user@localhost', 'a b', '::1', 'localhost:80:80', 'localhost/'])('%j names nothing', (header) =>
    expect(hostnameOf(header)).toBeUndefined(),
  );
});

describe('allowed_hosts entries', () => {
  it.each(['*', 'interlude', 'api.example.com', '.example.com', '10.0.0.5', '::1', '[::1]'])(
    '%j is one',
    (e) => expect(isHostPattern(e)).toBe(true),
  );
  it.each(['', 'http://a.example.com', 'a.example.com:80', 'a.example.com/x', '*.example.com', 'a b'])(
    '%j is not',
    (e) => expect(isHostPattern(e)).toBe(false),
  );
});

describe('KnownHosts', () => {
  const hosts = (bind: string, allowedHosts: string[] = [], publicBaseUrl?: string) =>
    new KnownHosts({ bind, allowedHosts, publicBaseUrl });

  it('bound to a name serves that name, localhost and addresses; nothing else', () => {
    const known = hosts('devbox.lan');
    expect(
      ['devbox.lan:8000', 'localhost', '192.168.1.9:8000', '[fe80::1]'].map((h) => known.serves(h)),
    ).toEqual([true, true, true, true]);
    expect(known.serves('rebind.attacker.test')).toBe(false);
    expect(known.anyHost || known.unlisted || known.loopbackOnly).toBe(false);
  });

  it('bound to every interface: any Host with no list (and says so), the list once there is one', () => {
    for (const bind of ['0.0.0.0', '::', '[::]']) {
      expect(hosts(bind)).toMatchObject({ anyHost: true, unlisted: true });
      expect(hosts(bind, ['interlude']).serves('rebind.attacker.test')).toBe(false);
    }
    expect(hosts('0.0.0.0', ['*'])).toMatchObject({ anyHost: true, unlisted: false });
  });

  it('knows public_base_url’s host, and a .domain with its subdomains only', () => {
    const known = hosts('localhost', ['.corp.example'], 'https://agents.example.org:8443');
    expect(known.loopbackOnly).toBe(true);
    expect(['agents.example.org', 'corp.example', 'a.b.corp.example'].every((n) => known.knows(n))).toBe(
      true,
    );
    expect(['notcorp.example', 'corp.example.evil', 'example.org'].some((n) => known.knows(n))).toBe(false);
  });
});
