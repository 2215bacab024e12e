import type { Request, Response } from 'express';

/**
 * Where callers reach this server, for answers that name its URLs: `public_base_url` when configured,
 * else the origin the request came by (its scheme and `Host`). An answer built from the request's `Host`
 * says so (`Vary: Host`): with any Host served (`allowed_hosts: ['*']`, or 0.0.0.0 with none listed) a
 * shared cache must not hand the answer given to one name to the callers of another.
 */
export function publicOrigin(publicBaseUrl: string | undefined, req: Request, res: Response): string {
  if (publicBaseUrl) return publicBaseUrl;
  res.vary('Host');
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
