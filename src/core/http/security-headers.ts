import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { reachesRoute } from '../logging/http-logging';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The headers helmet sets for these options, worked out once: they depend on nothing in the request,
 * so each answer only copies them instead of running helmet's middleware chain again.
 */
function fixedHeaders(middleware: Middleware): Middleware {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  middleware({} as Request, recorder as unknown as Response, () => undefined);
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** Headers every answer shares; each kind of page then gets its own Content-Security-Policy. */
function withPolicy(directives: Record<string, string[]>): Middleware {
  const middleware = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...directives, 'frame-ancestors': ["'none'"] },
    },
    // The OAuth popup reports back through window.opener, which same-origin COOP would cut.
    crossOriginOpenerPolicy: false,
    // Configured CORS origins read these answers from other sites.
    crossOriginResourcePolicy: false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  return fixedHeaders(middleware as Middleware);
}

/**
 * nosniff, no framing, no referrer and a CSP on every answer: JSON and streams may load nothing; the
 * OAuth callback page may run its own inline script; Swagger UI may load its own assets.
 */
export function securityHeaders(paths: { docs: string; oauth2Callback: string }) {
  const api = withPolicy({ 'default-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"] });
  const callback = withPolicy({
    'default-src': ["'none'"],
    'script-src': ["'unsafe-inline'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
  });
  const docs = withPolicy({
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    // Swagger UI sets inline styles on its elements and shows inline SVG/data: images.
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
  });
  const docsPrefix = paths.docs.toLowerCase();
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path.toLowerCase();
    if (path === docsPrefix || path.startsWith(`${docsPrefix}/`) || path.startsWith(`${docsPrefix}-`)) {
      return docs(req, res, next);
    }
    if (reachesRoute(req.path, paths.oauth2Callback)) return callback(req, res, next);
    return api(req, res, next);
  };
}
