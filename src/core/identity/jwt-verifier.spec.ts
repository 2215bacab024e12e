import { SignJWT, UnsecuredJWT } from 'jose';
import { JwtConfig } from './auth.config';
import { JwtVerifier } from './jwt-verifier';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const now = () => Math.floor(Date.now() / 1000);

function config(fields: Partial<JwtConfig>): JwtConfig {
  return Object.assign(new JwtConfig(), fields);
}

async function refusal(verifier: JwtVerifier, token: string): Promise<string | undefined> {
  try {
    await verifier.verify(token);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const signed = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode('any-key-at-all-any-key-at-all-xx'));

describe('JwtVerifier with verify: false (decode only)', () => {
  const verifier = new JwtVerifier(config({ verify: false }));

  it('decodes a current token without checking its signature', async () => {
    expect(await verifier.verify(await signed({ sub: 'u1', exp: now() + 60 }))).toMatchObject({ sub: 'u1' });
  });

  it('still refuses an expired token, one not yet valid, and alg none', async () => {
    expect(await refusal(verifier, await signed({ sub: 'u1', exp: now() - 3600 }))).toBe(
      'The token has expired',
    );
    expect(await refusal(verifier, await signed({ sub: 'u1', nbf: now() + 3600 }))).toMatch(/"nbf"/);
    const none = new UnsecuredJWT({ sub: 'u1' }).encode();
    expect(await refusal(verifier, none)).toBe("The token's algorithm is not accepted");
  });
});

describe('JwtVerifier: audience and issuer as a string or a list', () => {
  const token = (aud: string, iss: string) =>
    new SignJWT({ sub: 'u1', aud, iss })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));

  it.each([
    ['strings', { audience: 'my-api', issuer: 'https://id.example.com' }],
    ['lists', { audience: ['other', 'my-api'], issuer: ['https://x.example.com', 'https://id.example.com'] }],
  ])('%s: the named audience and issuer pass, others are refused', async (_name, fields) => {
    const verifier = new JwtVerifier(config({ secret: SECRET, ...fields }));
    expect(await refusal(verifier, await token('my-api', 'https://id.example.com'))).toBeUndefined();
    expect(await refusal(verifier, await token('nope', 'https://id.example.com'))).toMatch(/"aud"/);
    expect(await refusal(verifier, await token('my-api', 'https://evil.example.com'))).toMatch(/"iss"/);
  });
});
