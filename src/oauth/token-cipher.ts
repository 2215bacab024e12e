import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A token set sealed for storage: what a row holds, the key aside. */
export interface SealedTokens {
  /** Names the key that sealed it (a hash of the key, not the key). */
  keyId: string;
  iv: string;
  authTag: string;
  ciphertext: string;
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
// Fixed, so a row with a truncated tag is refused rather than checked against fewer bytes.
const TAG_BYTES = 16;

/**
 * Reads the 32-byte token key from the environment variable `name` (64 hex digits, or base64 /
 * base64url). Errors name the variable, never its value.
 */
export function tokenKeyFrom(name: string, env: NodeJS.ProcessEnv): Buffer {
  const raw = env[name]?.trim();
  const how = `set ${name} to 32 random bytes, hex or base64 (e.g. \`openssl rand -base64 32\`)`;
  if (!raw) {
    throw new Error(
      `general.executions.store is postgres: OAuth tokens are stored encrypted and ${name} is not set; ${how}`,
    );
  }
  const key = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64')
      : undefined;
  if (!key || key.length !== 32) {
    throw new Error(
      `${name} must hold a 32-byte key (it holds ${key ? `${key.length} bytes` : 'no hex or base64'}); ${how}`,
    );
  }
  const weakness = weaknessOf(key);
  if (weakness) throw new Error(`${name} is not a random key (${weakness}); ${how}`);
  return key;
}

// 32 random bytes hold about 30 distinct values and are all printable with odds near 1e-14, so
// these refuse a made-up key (zeros, a repeated pattern, a password) and never a generated one.
const MIN_DISTINCT_BYTES = 16;

function weaknessOf(key: Buffer): string | undefined {
  const distinct = new Set(key).size;
  if (distinct < MIN_DISTINCT_BYTES) {
    return `its 32 bytes take only ${distinct} distinct value${distinct === 1 ? '' : 's'}`;
  }
  if (key.every((b) => b >= 0x20 && b < 0x7f)) return 'its bytes are printable text, like a password';
  return undefined;
}

/**
 * AES-256-GCM with a random IV per seal. `owner` is bound as associated data, so a row copied onto
 * another owner's (another user's) does not open.
 */
export class TokenCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the token key must be 32 bytes');
    this.keyId = createHash('sha256').update('interlude-token-key:').update(key).digest('hex').slice(0, 16);
  }

  seal(owner: string, plaintext: string): SealedTokens {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(owner));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      keyId: this.keyId,
      iv: iv.toString('base64'),
      authTag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
  }

  /** The plaintext; throws when the row was sealed with another key, for another owner, or altered. */
  open(owner: string, sealed: SealedTokens): string {
    if (sealed.keyId !== this.keyId) throw new Error('sealed with another key');
    const decipher = createDecipheriv(ALGORITHM, this.key, Buffer.from(sealed.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(owner));
    decipher.setAuthTag(Buffer.from(sealed.authTag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  }
}
