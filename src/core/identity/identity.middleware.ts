import type { NextFunction, Request, Response } from 'express';
import { addressOf } from '../http/connection-caps';
import { ANONYMOUS, type Identity } from './identity';
import type { IdentityResolver } from './identity.resolver';

export type IdentifiedRequest = Request & { identity?: Identity; identityError?: unknown };

/**
 * Resolves who is asking before routing, so everything after (request tracking, logs, handlers) knows.
 * A credential that fails (a bad JWT) is kept on the request and reported by IdentityGuard, in the
 * route's own error shape.
 */
export function identityMiddleware(resolver: IdentityResolver) {
  const refused = (req: IdentifiedRequest, err: unknown) => {
    req.identity = ANONYMOUS;
    req.identityError = err;
  };
  return (req: IdentifiedRequest, _res: Response, next: NextFunction): void => {
    let resolved: Identity | Promise<Identity>;
    try {
      resolved = resolver.resolve(req.headers, undefined, addressOf(req));
    } catch (err) {
      refused(req, err);
      return next();
    }
    if (!(resolved instanceof Promise)) {
      req.identity = resolved;
      return next();
    }
    resolved.then(
      (identity) => {
        req.identity = identity;
        next();
      },
      (err: unknown) => {
        refused(req, err);
        next();
      },
    );
  };
}
