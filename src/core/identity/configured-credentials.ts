import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { BasicLimitsConfig, type ApiKeyConfig, type BasicUserConfig } from './auth.config';
import { AppError, ErrorCode } from '../errors/app-error';
import { BasicAuthLimits } from './basic-auth-limits';
import type { Identity } from './identity';

/** What a password hash holds: `scrypt:<salt base64>:<key base64>` with Node's default cost (N=16384). */
interface PasswordHash {
  salt: Buffer;
  key: Buffer;
}

function parsePasswordHash(text: string): PasswordHash {
  const [, salt, key] = text.split(':');
  return { salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

function scryptKey(password: string, salt: Buffer, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, length, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt:<salt>:<key>` for a password, in the format basic_users' password_hash takes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptKey(password, salt, 32);
  return `scrypt:${salt.toString('base64')}:${key.toString('base64')}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function refused(what: string, challenge: string): AppError {
  return new AppError(ErrorCode.Unauthorized, what, { headers: { 'WWW-Authenticate': challenge } });
}

const roleClaims = (roles: string[]): Record<string, unknown> => (roles.length > 0 ? { roles } : {});

/** Successful Basic checks remembered, so a client sending the same header does not pay scrypt each time. */
const REMEMBERED_LOGINS = 256;

/**
 * The API keys and Basic users listed in `general.auth`. A presented credential either matches one of
 * them or is refused: it is never turned into a user by hashing whatever was sent.
 */
export class ConfiguredCredentials {
  private readonly keys: Map<string, ApiKeyConfig>;
  private readonly users: Map<string, { user: BasicUserConfig; hash: PasswordHash }>;
  private readonly remembered = new Map<string, Identity>();
  private readonly limits: BasicAuthLimits;
  /** Checked when the username is unknown, so timing does not tell which usernames exist. */
  private readonly decoy: PasswordHash = { salt: randomBytes(16), key: randomBytes(32) };

  constructor(
    apiKeys: ApiKeyConfig[],
    basicUsers: BasicUserConfig[],
    limits: BasicLimitsConfig = new BasicLimitsConfig(),
    now?: () => number,
  ) {
    this.limits = new BasicAuthLimits(limits, now);
    this.keys = new Map(apiKeys.map((k) => [k.hash.slice('sha256:'.length).toLowerCase(), k]));
    this.users = new Map(
      basicUsers.map((u) => [u.username, { user: u, hash: parsePasswordHash(u.password_hash) }]),
    );
  }

  get hasApiKeys(): boolean {
    return this.keys.size > 0;
  }

  get hasBasicUsers(): boolean {
    return this.users.size > 0;
  }

  apiKey(key: string): Identity {
    // Looked up by the key's hash: comparing digests leaks nothing usable about the key itself.
    const entry = this.keys.get(sha256Hex(key));
    if (!entry) throw refused('The API key is not accepted', 'Bearer');
    return { userId: entry.user_id, source: 'api_key', claims: roleClaims(entry.roles), verified: true };
  }

  /**
   * The Basic user `credentials` (the header's base64) name. `address` is the client's: failures count
   * against it (general.auth.basic_limits), so pass it whenever the caller has one.
   */
  async basic(credentials: string, address = 'unknown'): Promise<Identity> {
    const fingerprint = sha256Hex(credentials);
    const known = this.remembered.get(fingerprint);
    if (known) return known;
    const notAccepted = () => refused('The username or password is not accepted', 'Basic realm="interlude"');
    if (this.limits.failedRecently(fingerprint)) throw notAccepted();
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const username = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    const entry = this.users.get(username);
    const hash = entry?.hash ?? this.decoy;
    // Every name is limited alike (known or not), so a lock tells nothing about which names exist.
    const name = sha256Hex(username);
    const key = await this.limits.run(address, name, () => scryptKey(password, hash.salt, hash.key.length));
    if (!entry || colon < 0 || !timingSafeEqual(key, hash.key)) {
      this.limits.recordFailure(fingerprint, address, name);
      throw notAccepted();
    }
    const { user } = entry;
    const identity: Identity = {
      userId: user.user_id ?? user.username,
      source: 'basic',
      verified: true,
      claims: roleClaims(user.roles),
    };
    if (this.remembered.size >= REMEMBERED_LOGINS)
      this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(fingerprint, identity);
    return identity;
  }
}
