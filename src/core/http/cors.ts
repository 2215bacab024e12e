import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';
import type { CorsConfig } from './cors.config';
import { corsOriginMatcher } from './allowed-origin';

type OriginCallback = (err: Error | null, allow?: boolean | string) => void;

/**
 * CORS from config. `*` (never with credentials: refused at config load) answers a literal `*`; a
 * listed origin or one the regex matches in full is echoed back. The opaque origin `null` (sandboxed
 * frames, `file:` pages, some redirects) is never echoed: anyone can send it.
 */
export function corsOptions(cors: CorsConfig): CorsOptions {
  const allowed = corsOriginMatcher(cors);
  const origin = cors.allow_origins.includes('*')
    ? '*'
    : (requested: string | undefined, done: OriginCallback) =>
        done(null, requested !== undefined && allowed(requested) ? requested : false);
  return {
    origin,
    methods: cors.allow_methods.includes('*') ? undefined : cors.allow_methods,
    allowedHeaders: cors.allow_headers.includes('*') ? undefined : cors.allow_headers,
    exposedHeaders: cors.expose_headers,
    credentials: cors.allow_credentials,
    maxAge: cors.max_age,
  };
}
