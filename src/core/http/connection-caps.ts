import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { clientAddress, type TrustedProxy, type UntrustedForwardedFor } from './client-address';
import type { StreamRoutes } from './route-table';

/** Open connections per key (an address, an execution), refusing past a maximum. */
export class OpenCounter {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Counts one more for `key`, or returns false when it already has `max`. */
  tryOpen(key: string): boolean {
    const count = this.open.get(key) ?? 0;
    if (count >= this.max) return false;
    this.open.set(key, count + 1);
    return true;
  }

  close(key: string): void {
    const count = (this.open.get(key) ?? 0) - 1;
    if (count > 0) this.open.set(key, count);
    else this.open.delete(key);
  }
}

export interface StreamCaps {
  perAddress: number;
  perExecution: number;
  trusted: TrustedProxy;
}

const ADDRESS = Symbol('interlude.clientAddress');
const TRUST = Symbol('interlude.trustedProxy');
type Annotated = IncomingMessage & { [ADDRESS]?: string; [TRUST]?: TrustedProxy };

/**
 * Remembers which proxies to trust on each request, so its address can be read when needed, and says
 * (once) when a peer it does not trust sends X-Forwarded-For.
 */
export function trustProxies(trusted: TrustedProxy, untrusted: UntrustedForwardedFor) {
  return (req: IncomingMessage, _res: unknown, next: () => void): void => {
    (req as Annotated)[TRUST] = trusted;
    untrusted.check(req);
    next();
  };
}

/** The caller's address, computed once per request (trust_proxy applied). */
export function addressOf(req: IncomingMessage, trusted?: TrustedProxy): string {
  const annotated = req as Annotated;
  return (annotated[ADDRESS] ??= clientAddress(req, trusted ?? annotated[TRUST] ?? (() => false)));
}

function refuse(res: Response, openai: boolean, message: string): void {
  res.setHeader('Retry-After', '5');
  res
    .status(429)
    .json(
      openai
        ? { error: { message, type: 'rate_limit_error', param: null, code: 'too_many_streams' } }
        : { detail: message },
    );
}

/**
 * Caps the streams one address holds open, and the re-attached streams of one execution: a stream
 * costs the server for as long as it lasts, so one client must not be able to hold thousands.
 * Runs after the body parser (a chat completion streams when its body says so).
 */
export function streamCaps(routes: StreamRoutes, caps: StreamCaps) {
  const byAddress = new OpenCounter(caps.perAddress);
  const byExecution = new OpenCounter(caps.perExecution);
  return (req: Request, res: Response, next: NextFunction): void => {
    const openai = routes.byBody(req.path);
    const streaming =
      routes.byPath(req.path) || (openai && (req.body as { stream?: unknown } | undefined)?.stream === true);
    if (!streaming) return next();
    const address = addressOf(req, caps.trusted);
    if (!byAddress.tryOpen(address)) {
      return refuse(
        res,
        openai,
        `Too many open streams from your address (general.front_end.max_streams_per_address: ${caps.perAddress}); close one first.`,
      );
    }
    const execution = routes.reattached(req.path);
    if (execution !== undefined && !byExecution.tryOpen(execution)) {
      byAddress.close(address);
      return refuse(
        res,
        openai,
        `Too many streams follow this execution (general.front_end.max_reattached_streams_per_execution: ${caps.perExecution}).`,
      );
    }
    res.once('close', () => {
      byAddress.close(address);
      if (execution !== undefined) byExecution.close(execution);
    });
    next();
  };
}
