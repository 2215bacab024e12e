import { v5 as uuidv5 } from 'uuid';
import type { IdentitySource } from './auth.config';

/** NeMo Agent Toolkit's namespace: uuid5(NAMESPACE_DNS, "nemo-agent-toolkit"). */
const NAT_NAMESPACE = uuidv5('nemo-agent-toolkit', uuidv5.DNS);

/** The user id NeMo Agent Toolkit derives from a cookie value, a JWT subject, an API key or basic credentials. */
export function natUserId(key: string): string {
  return uuidv5(key, NAT_NAMESPACE);
}

const UNVERIFIED_NAMESPACES = new Map<string, string>();

/**
 * The id of a caller named by an unverified source while verified ones are on: a namespace per source,
 * so no cookie or key value can produce the id of a JWT subject (or of another source's caller).
 */
export function unverifiedUserId(source: IdentitySource, key: string): string {
  let namespace = UNVERIFIED_NAMESPACES.get(source);
  if (!namespace) {
    namespace = uuidv5(`interlude:unverified:${source}`, NAT_NAMESPACE);
    UNVERIFIED_NAMESPACES.set(source, namespace);
  }
  return uuidv5(key, namespace);
}
