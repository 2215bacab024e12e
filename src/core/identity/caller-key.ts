import type { Identity } from './identity';

/**
 * Whom a shared resource (a sandbox's workers) is shared between: the user, or for an anonymous caller
 * the client address, so one anonymous client is one caller however many requests it sends.
 */
export function callerKey(identity: Identity, address: string | undefined): string {
  return identity.userId !== null ? `user:${identity.userId}` : `address:${address ?? 'unknown'}`;
}
