/** Who asked. Resolved once per request or connection; passed explicitly to services. */
export interface Identity {
  /** NeMo Agent Toolkit's uuid5 user id, or null for an anonymous caller. */
  userId: string | null;
  source: 'anonymous' | 'cookie' | 'jwt' | 'api_key' | 'basic';
  /** A JWT's claims (email, name, roles, groups, scope…); empty for other sources. */
  claims: Record<string, unknown>;
  /** Checked against something the operator configured (a JWT key, api_keys, basic_users). */
  verified?: boolean;
}

export const ANONYMOUS: Identity = Object.freeze({
  userId: null,
  source: 'anonymous',
  claims: Object.freeze({}),
});
