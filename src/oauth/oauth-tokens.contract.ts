import type { OAuthTokens } from './oauth-tokens';

const unique = (what: string) => `${what}-${Math.random().toString(36).slice(2)}`;

/** What every OAuthTokens adapter must do; a spec per adapter calls this with a factory. */
export function oauthTokensContract(
  name: string,
  makeTokens: () => Promise<OAuthTokens> | OAuthTokens,
  /** Adapters shared by several processes: the same tokens as another process sees them. */
  makePeer?: () => Promise<OAuthTokens>,
) {
  describe(`OAuthTokens contract: ${name}`, () => {
    let tokens: OAuthTokens;
    beforeEach(async () => {
      tokens = await makeTokens();
    });

    it("keeps a user's tokens per provider, replaces them, and deletes them", async () => {
      const user = unique('user');
      const calendar = `user:${user}:calendar`;
      const mail = `user:${user}:mail`;
      await tokens.set(calendar, { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: 1_900_000_000_000 });
      await tokens.set(mail, { accessToken: 'at-mail' });
      expect(await tokens.get(calendar)).toEqual({
        accessToken: 'at-1',
        refreshToken: 'rt-1',
        expiresAt: 1_900_000_000_000,
      });
      expect(await tokens.get(mail)).toEqual({ accessToken: 'at-mail' });
      expect(await tokens.get(`user:${unique('other')}:calendar`)).toBeUndefined();

      await tokens.set(calendar, { accessToken: 'at-2', refreshToken: 'rt-2' });
      expect(await tokens.get(calendar)).toEqual({ accessToken: 'at-2', refreshToken: 'rt-2' });
      await tokens.delete(calendar);
      expect(await tokens.get(calendar)).toBeUndefined();
      expect(await tokens.get(mail)).toEqual({ accessToken: 'at-mail' });
    });

    it("drops an anonymous caller's tokens when its execution ends, and nobody else's", async () => {
      const [ended, running] = [unique('exec'), unique('exec')];
      const user = `user:${unique('user')}:calendar`;
      await tokens.set(`execution:${ended}:calendar`, { accessToken: 'a' }, ended);
      await tokens.set(`execution:${ended}:mail`, { accessToken: 'b' }, ended);
      await tokens.set(`execution:${running}:calendar`, { accessToken: 'c' }, running);
      await tokens.set(user, { accessToken: 'd' });
      await tokens.forgetExecution(ended);
      expect(await tokens.get(`execution:${ended}:calendar`)).toBeUndefined();
      expect(await tokens.get(`execution:${ended}:mail`)).toBeUndefined();
      expect(await tokens.get(`execution:${running}:calendar`)).toEqual({ accessToken: 'c' });
      expect(await tokens.get(user)).toEqual({ accessToken: 'd' });
    });

    if (makePeer) {
      it('across processes: a token stored on one is read, replaced and deleted on another', async () => {
        const peer = await makePeer();
        const owner = `user:${unique('user')}:calendar`;
        await tokens.set(owner, { accessToken: 'granted-on-c', refreshToken: 'r' });
        expect(await peer.get(owner)).toEqual({ accessToken: 'granted-on-c', refreshToken: 'r' });
        await peer.set(owner, { accessToken: 'refreshed-on-a' });
        expect(await tokens.get(owner)).toEqual({ accessToken: 'refreshed-on-a' });
        await peer.delete(owner);
        expect(await tokens.get(owner)).toBeUndefined();
      });
    }
  });
}
