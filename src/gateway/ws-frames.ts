import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors/app-error';
import { addressOf } from '../core/http/connection-caps';
import { cookiesOf } from '../core/http/request-metadata';
import { validatePlain } from '../core/validation/validation-issues';
import { errorMessage, type WsErrorCode } from './ws-messages';
import type { WsSession } from './ws-session';

/** RFC 6455 close code for a policy violation. */
export const POLICY_VIOLATION = 1008;
/** Session ids a browser may send in `?session=` (RFC 3986 unreserved characters). */
export const SESSION_ID = /^[A-Za-z0-9\-_.~]+$/;

export type Checked<T> = { ok: true; value: T } | { ok: false; details: string };

export function check<T extends object>(cls: new () => T, message: unknown): Checked<T> {
  const checked = validatePlain(cls, message);
  return checked.ok ? checked : { ok: false, details: AppError.validation(checked.issues).message };
}

/** The handshake as workflows see it (`ctx.request`). */
export function handshakeMetadata(req: IncomingMessage, url: URL): WsSession['request'] {
  return {
    method: 'GET',
    path: url.pathname,
    headers: req.headers,
    query: Object.fromEntries(url.searchParams),
    cookies: cookiesOf(req.headers),
    // Counted at the handshake by the adapter, with general.front_end.trust_proxy applied.
    clientAddress: addressOf(req),
  };
}

/** A close reason is at most 123 bytes of UTF-8: cut on a character boundary. */
export function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/** An `error_message` for a frame that is refused; the connection stays up. */
export function rejectFrame(
  session: WsSession,
  code: WsErrorCode,
  message: string,
  details: string,
  parentId?: string,
): void {
  const conversation = session.run?.conversationId ?? session.conversationId;
  session.send(errorMessage(code, message, details, conversation, parentId ?? null));
}
