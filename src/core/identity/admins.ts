import type { Identity } from './identity';

function rolesOf(identity: Identity): string[] {
  // Anyone can write a role into a token nobody checks (`jwt.verify: false`, an unverified source).
  if (identity.verified !== true) return [];
  const { roles, groups } = identity.claims as { roles?: unknown; groups?: unknown };
  return [roles, groups].flatMap((v) =>
    Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [],
  );
}

/**
 * Whether `general.auth.admin` (user ids, or `role:<name>` for a JWT role or group) names this caller.
 * Roles count only from verified credentials (a checked JWT, api_keys, basic_users).
 * An unset or empty list names nobody: operator views are closed until someone is named.
 */
export function isAdmin(identity: Identity | undefined, admins: readonly string[] | undefined): boolean {
  if (!identity?.userId || !admins?.length) return false;
  const mine = rolesOf(identity);
  return admins.some((a) => (a.startsWith('role:') ? mine.includes(a.slice(5)) : a === identity.userId));
}
