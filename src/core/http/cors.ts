import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';
import type { CorsConfig } from '../../config/config.schema';

type OriginCallback = (err: Error | null, allow?: boolean | string) => void;

/**
 * CORS from config. `*` (never with credentials: refused at config load) answers a literal `*`; a
 * listed origin or one the regex matches in full is echoed back. The opaque origin `null` (sandboxed
 * frames, `file:` pages, some redirects) is never echoed: anyone can send it.
 */
export function corsOptions(cors: CorsConfig): CorsOptions {
  const listed = new Set(cors.allow_origins);
  const pattern = cors.allow_origin_regex ? new RegExp(`^(?:${cors.allow_origin_regex})$`) : undefined;
  const origin = listed.has('*')
    ? '*'
    : (requested: string | undefined, done: OriginCallback) => {
        const allowed =
          requested !== undefined &&
          requested !== 'null' &&
          (listed.has(requested) || pattern?.test(requested) === true);
        done(null, allowed ? requested : false);
      };
  return {
    origin,
    methods: cors.allow_methods.includes('*') ? undefined : cors.allow_methods,
    allowedHeaders: cors.allow_headers.includes('*') ? undefined : cors.allow_headers,
    exposedHeaders: cors.expose_headers,
    credentials: cors.allow_credentials,
    maxAge: cors.max_age,
  };
}
