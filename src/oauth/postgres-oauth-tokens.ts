import { Logger } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables';
import type { TokenSet } from './oauth-client';
import { OAuthTokens } from './oauth-tokens';
import type { TokenCipher } from './token-cipher';

/** An anonymous caller's tokens are dropped when its execution ends, and in any case after this. */
const ANONYMOUS_TOKEN_MAX_AGE_MS = 7 * 24 * 3_600_000;

/**
 * OAuth tokens in PostgreSQL, shared by every replica and sealed with AES-256-GCM: a row holds a random
 * IV, the auth tag and the ciphertext of the whole token set, with the owner as associated data. A row
 * that does not open (another key, altered) counts as no token: the user is asked again.
 */
export class PostgresOAuthTokens extends OAuthTokens {
  private readonly logger = new Logger('OAuthTokens');

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly cipher: TokenCipher,
  ) {
    super();
  }

  async get(owner: string): Promise<TokenSet | undefined> {
    const row = await this.db
      .selectFrom('oauth_token')
      .select(['key_id', 'iv', 'auth_tag', 'ciphertext'])
      .where('owner', '=', owner)
      .executeTakeFirst();
    if (!row) return undefined;
    try {
      const sealed = { keyId: row.key_id, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext };
      return JSON.parse(this.cipher.open(owner, sealed)) as TokenSet;
    } catch (err) {
      // The owner key names a user id and a provider, no secret.
      this.logger.warn(`A stored token of ${owner} does not open (${(err as Error).message}); asking again`);
      return undefined;
    }
  }

  async set(owner: string, tokens: TokenSet, executionId?: string): Promise<void> {
    const sealed = this.cipher.seal(owner, JSON.stringify(tokens));
    const row = {
      execution_id: executionId ?? null,
      key_id: sealed.keyId,
      iv: sealed.iv,
      auth_tag: sealed.authTag,
      ciphertext: sealed.ciphertext,
      updated_at: Date.now(),
    };
    await this.db
      .insertInto('oauth_token')
      .values({ owner, ...row })
      .onConflict((oc) => oc.column('owner').doUpdateSet(row))
      .execute();
    // An anonymous caller's tokens whose execution never ended here (its replica died and nobody took
    // it over) go with a later write.
    await this.db
      .deleteFrom('oauth_token')
      .where('execution_id', 'is not', null)
      .where('updated_at', '<', Date.now() - ANONYMOUS_TOKEN_MAX_AGE_MS)
      .execute();
  }

  async delete(owner: string): Promise<void> {
    await this.db.deleteFrom('oauth_token').where('owner', '=', owner).execute();
  }

  async forgetExecution(executionId: string): Promise<void> {
    await this.db.deleteFrom('oauth_token').where('execution_id', '=', executionId).execute();
  }
}
