import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com, spec v1): every delivery carries
 * `webhook-id` (the same on each retry of one message, for de-duplication), `webhook-timestamp` (Unix
 * seconds of this attempt) and, when a secret is set, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`. The timestamp is signed, so a receiver that refuses old timestamps
 * (the spec suggests five minutes) is not fooled by a delivery sent again.
 */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * The HMAC key: a secret in the spec's form (`whsec_` and base64) is the bytes it encodes, as the
 * Standard Webhooks libraries read it; any other string is its own UTF-8 bytes.
 */
export function webhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/** The headers of one delivery attempt of message `id` with `body`. */
export function webhookHeaders(
  id: string,
  body: string,
  secret: string | undefined,
  now = Date.now(),
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const headers: Record<string, string> = {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: timestamp,
  };
  if (secret) {
    const mac = createHmac('sha256', webhookKey(secret))
      .update(`${id}.${timestamp}.${body}`)
      .digest('base64');
    headers[WEBHOOK_HEADERS.signature] = `v1,${mac}`;
  }
  return headers;
}
