import { OutboundPolicy } from './outbound-policy';

describe('OutboundPolicy: which addresses a request may reach', () => {
  const policy = new OutboundPolicy();

  it.each([
    ['8.8.8.8', 'a public IPv4 address'],
    ['2606:4700::1111', 'a public IPv6 address'],
    ['::ffff:8.8.8.8', 'IPv4-mapped, a public IPv4 inside'],
    ['64:ff9b::808:808', 'NAT64 (DNS64 on an IPv6-only network), a public IPv4 inside'],
  ])('allows %s (%s)', (address) => {
    expect(policy.addressAllowed(address)).toBe(true);
  });

  it.each([
    ['::7f00:1', 'IPv4-compatible (::/96, deprecated): 127.0.0.1 inside'],
    ['::a9fe:a9fe', 'IPv4-compatible: 169.254.169.254 inside'],
    ['::808:808', 'IPv4-compatible, even with a public IPv4 inside'],
    ['::127.0.0.1', 'IPv4-compatible written with a dotted quad'],
    ['::ffff:127.0.0.1', 'IPv4-mapped, loopback inside'],
    ['::ffff:0:7f00:1', 'IPv4-translated (::ffff:0:0:0/96)'],
    ['64:ff9b::7f00:1', 'NAT64, loopback inside'],
    ['64:ff9b::a9fe:a9fe', 'NAT64, cloud metadata inside'],
    ['64:ff9b::a00:1', 'NAT64, 10.0.0.1 inside'],
    ['64:ff9b:1::808:808', 'local-use NAT64 (64:ff9b:1::/48), the operator’s own translator'],
    ['2002:7f00:1::1', '6to4 (2002::/16), loopback inside'],
    ['2002:808:808::1', '6to4 even with a public IPv4 inside (deprecated, RFC 7526)'],
    ['2001::1', 'Teredo (2001::/32)'],
    ['100::1', 'discard (100::/64)'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
    ['ff02::1', 'multicast (ff00::/8)'],
    ['fec0::1', 'site-local (fec0::/10, deprecated)'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'unique-local (fc00::/7): a cloud metadata service'],
    ['fe80::1', 'link-local'],
  ])('refuses %s (%s)', (address) => {
    expect(policy.addressAllowed(address)).toBe(false);
  });

  it('refuses a URL naming an IPv4-compatible address, as the URL parser writes it', () => {
    const url = new URL('http://[::127.0.0.1]/');
    expect(url.hostname).toBe('[::7f00:1]');
    expect(() => policy.checkUrl(url)).toThrow(/requests to ::7f00:1 are refused/);
  });

  it('allows an address carried inside IPv6 when the IPv4 address, or the IPv6 range, is listed', () => {
    const listed = new OutboundPolicy({ allow_hosts: ['10.0.0.0/8', '::/96'] });
    expect(listed.addressAllowed('64:ff9b::a00:1')).toBe(true);
    expect(listed.addressAllowed('::ffff:10.1.2.3')).toBe(true);
    expect(listed.addressAllowed('::7f00:1')).toBe(true);
    expect(listed.addressAllowed('64:ff9b::7f00:1')).toBe(false);
  });
});
