import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middleware functions as one, run in order. Mounted separately, each one costs a request an
 * Express layer and Nest's wrapper (a WeakSet entry and a method check); mounted as one, it pays once.
 * Follows Express's contract: `next(err)` or a throw skips the rest and hands the error on.
 */
export function composeMiddleware(list: RequestHandler[]): RequestHandler {
  if (list.length === 1) return list[0];
  return (req: Request, res: Response, next: NextFunction): void => {
    let at = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null && err !== 'route') return next(err);
      const middleware = list[at++];
      if (middleware === undefined) return next();
      try {
        void middleware(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
