import { v5 as uuidv5 } from 'uuid';

/** NeMo Agent Toolkit's namespace: uuid5(NAMESPACE_DNS, "nemo-agent-toolkit"). */
const NAT_NAMESPACE = uuidv5('nemo-agent-toolkit', uuidv5.DNS);

/** The user id NeMo Agent Toolkit derives from a cookie value, a JWT subject, an API key or basic credentials. */
export function natUserId(key: string): string {
  return uuidv5(key, NAT_NAMESPACE);
}
