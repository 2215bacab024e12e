import { randomBytes } from 'node:crypto';
import { TokenCipher, tokenKeyFrom } from './token-cipher';

describe('the OAuth token key', () => {
  const key = randomBytes(32);

  it('is read from the variable as 64 hex digits, base64 or base64url', () => {
    for (const value of [key.toString('hex'), key.toString('base64'), key.toString('base64url')]) {
      expect(tokenKeyFrom('MY_KEY', { MY_KEY: value })).toEqual(key);
    }
  });

  it('missing or of the wrong size: an error that names the variable and never the value', () => {
    expect(() => tokenKeyFrom('MY_KEY', {})).toThrow(/MY_KEY is not set; set MY_KEY to 32 random bytes/);
    const short = randomBytes(16).toString('base64');
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: short })).toThrow(
      'MY_KEY must hold a 32-byte key (it holds 16 bytes)',
    );
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: short })).not.toThrow(short);
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: 'not a key!' })).toThrow('it holds no hex or base64');
  });

  it('made up rather than random (zeros, a repeated pattern, text): refused, the value never shown', () => {
    const weak = {
      zeros: '0'.repeat(64),
      pattern: '0123456789abcdef'.repeat(4),
      text: Buffer.from('correct horse battery staple 123').toString('base64'),
    };
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: weak.zeros })).toThrow(
      'MY_KEY is not a random key (its 32 bytes take only 1 distinct value); set MY_KEY to 32 random bytes',
    );
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: weak.pattern })).toThrow('only 8 distinct values');
    expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: weak.text })).toThrow('printable text');
    for (const value of Object.values(weak)) {
      expect(() => tokenKeyFrom('MY_KEY', { MY_KEY: value })).not.toThrow(value);
    }
  });
});

describe('TokenCipher', () => {
  const cipher = new TokenCipher(randomBytes(32));

  it('opens what it sealed for the same owner; a tampered row or a truncated tag does not open', () => {
    const sealed = cipher.seal('user:u:calendar', '{"accessToken":"at"}');
    expect(cipher.open('user:u:calendar', sealed)).toBe('{"accessToken":"at"}');
    expect(() => cipher.open('user:v:calendar', sealed)).toThrow();
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] ^= 1;
    expect(() =>
      cipher.open('user:u:calendar', { ...sealed, ciphertext: flipped.toString('base64') }),
    ).toThrow();
    const shortTag = Buffer.from(sealed.authTag, 'base64').subarray(0, 4).toString('base64');
    expect(() => cipher.open('user:u:calendar', { ...sealed, authTag: shortTag })).toThrow();
    expect(() => new TokenCipher(randomBytes(32)).open('user:u:calendar', sealed)).toThrow('another key');
  });
});
