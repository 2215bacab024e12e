import { randomBytes } from 'node:crypto';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import type { Database } from '../db/database';
import { oauthTokensContract } from './oauth-tokens.contract';
import { pendingOAuthFlowsContract } from './pending-oauth-flows.contract';
import { PostgresOAuthTokens } from './postgres-oauth-tokens';
import { PostgresPendingOAuthFlows } from './postgres-pending-oauth-flows';
import { TokenCipher } from './token-cipher';

requires('postgres')('Postgres OAuth adapters', () => {
  const services = new ReplicaServices();
  let database: Promise<Database> | undefined;
  const shared = () => (database ??= services.database());
  const key = randomBytes(32);
  afterAll(() => services.cleanup());

  pendingOAuthFlowsContract(
    'postgres',
    async () => new PostgresPendingOAuthFlows((await shared()).db, new TokenCipher(key)),
    async () => new PostgresPendingOAuthFlows((await services.database()).db, new TokenCipher(key)),
  );

  describe('flows at rest', () => {
    const aFlow = (state: string, codeVerifier: string) => ({
      state,
      executionId: 'e-rest',
      owner: 'user:alice:calendar',
      ownerId: 'alice',
      provider: 'calendar',
      providerUrl: 'http://127.0.0.1:9/authorize',
      codeVerifier,
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });

    it("a row holds the PKCE verifier sealed, and the adapter reads it back; another flow's row cannot open it", async () => {
      const { db } = await shared();
      const flows = new PostgresPendingOAuthFlows(db, new TokenCipher(key));
      const verifier = `pkce-${randomBytes(24).toString('base64url')}`;
      const state = `s-rest-${randomBytes(6).toString('hex')}`;
      await flows.put(aFlow(state, verifier));
      const row = await db
        .selectFrom('pending_oauth_flow')
        .select('flow')
        .where('state', '=', state)
        .executeTakeFirstOrThrow();
      expect(JSON.stringify(row.flow)).not.toContain(verifier);
      expect((await flows.get(state))?.codeVerifier).toBe(verifier);

      const other = `s-rest-${randomBytes(6).toString('hex')}`;
      await flows.put(aFlow(other, 'another'));
      const copied = JSON.parse(typeof row.flow === 'string' ? row.flow : JSON.stringify(row.flow));
      await db
        .updateTable('pending_oauth_flow')
        .set({ flow: JSON.stringify({ ...copied, state: other }) })
        .where('state', '=', other)
        .execute();
      await expect(flows.get(other)).rejects.toThrow();
    });
  });

  oauthTokensContract(
    'postgres',
    async () => new PostgresOAuthTokens((await shared()).db, new TokenCipher(key)),
    async () => new PostgresOAuthTokens((await services.database()).db, new TokenCipher(key)),
  );

  describe('tokens at rest', () => {
    const owner = `user:${randomBytes(4).toString('hex')}:calendar`;
    const secret = { accessToken: `at-${randomBytes(16).toString('hex')}`, refreshToken: 'rt-never-stored' };

    it('a row holds no token in plaintext, and each write has its own IV', async () => {
      const { db } = await shared();
      const tokens = new PostgresOAuthTokens(db, new TokenCipher(key));
      await tokens.set(owner, secret);
      const first = await db
        .selectFrom('oauth_token')
        .selectAll()
        .where('owner', '=', owner)
        .executeTakeFirstOrThrow();
      await tokens.set(owner, secret);
      const second = await db
        .selectFrom('oauth_token')
        .selectAll()
        .where('owner', '=', owner)
        .executeTakeFirstOrThrow();
      const text = JSON.stringify([first, second]);
      expect(text).not.toContain(secret.accessToken);
      expect(text).not.toContain(secret.refreshToken);
      expect(text).not.toContain(Buffer.from(secret.accessToken).toString('base64'));
      expect(second.iv).not.toBe(first.iv);
      expect(second.ciphertext).not.toBe(first.ciphertext);
      expect(await tokens.get(owner)).toEqual(secret);
    });

    it('another key, or a row moved onto another owner, opens nothing: the user is asked again', async () => {
      const { db } = await shared();
      await new PostgresOAuthTokens(db, new TokenCipher(key)).set(owner, secret);
      expect(await new PostgresOAuthTokens(db, new TokenCipher(randomBytes(32))).get(owner)).toBeUndefined();
      const victim = `user:${randomBytes(4).toString('hex')}:calendar`;
      const mine = new PostgresOAuthTokens(db, new TokenCipher(key));
      await mine.set(victim, { accessToken: 'victim' });
      const row = await db
        .selectFrom('oauth_token')
        .selectAll()
        .where('owner', '=', owner)
        .executeTakeFirstOrThrow();
      const { iv, auth_tag, ciphertext } = row;
      await db
        .updateTable('oauth_token')
        .set({ iv, auth_tag, ciphertext })
        .where('owner', '=', victim)
        .execute();
      expect(await mine.get(victim)).toBeUndefined();
    });
  });
});
