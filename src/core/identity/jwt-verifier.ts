import { Logger } from '@nestjs/common';
import type { importSPKI, jwtVerify, JWTPayload, JWTVerifyGetKey } from 'jose';
import type { JwtConfig } from './auth.config';
import { AppError, ErrorCode } from '../errors/app-error';

/** jose, loaded at the first JWT (or the config that verifies them): most servers never see one. */
function jose(): typeof import('jose') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('jose') as typeof import('jose');
}

const HMAC = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** 401 with a `WWW-Authenticate` challenge (RFC 6750) naming what is wrong. */
export function invalidToken(description: string): AppError {
  const quoted = description.replace(/["\\]/g, "'");
  return new AppError(ErrorCode.Unauthorized, description, {
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${quoted}"` },
  });
}

/** Whether a bearer token is shaped like a JWT (a JOSE header that decodes), as opposed to an API key. */
export function looksLikeJwt(token: string): boolean {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) return false;
  try {
    return typeof jose().decodeProtectedHeader(token).alg === 'string';
  } catch {
    return false;
  }
}

/** Verifies Bearer JWTs as `general.auth.jwt` says; never trusts a token it cannot verify unless told to. */
export class JwtVerifier {
  private readonly logger = new Logger('Auth');
  private key?: Uint8Array | JWTVerifyGetKey | ReturnType<typeof importSPKI>;

  constructor(private readonly config: JwtConfig | undefined) {
    if (!config) return;
    if (config.verify === false) {
      this.logger.warn(
        'general.auth.jwt.verify is false: Bearer JWTs are decoded WITHOUT verifying their signature. ' +
          'Only do this behind a gateway that verifies them.',
      );
      return;
    }
    if (config.secret) this.key = new TextEncoder().encode(config.secret);
    else if (config.jwks_url) {
      this.key = jose().createRemoteJWKSet(new URL(config.jwks_url), {
        cacheMaxAge: 10 * 60_000,
        cooldownDuration: 30_000,
      });
    } else if (config.public_key) {
      const alg = config.algorithms?.find((a) => ASYMMETRIC.includes(a)) ?? 'RS256';
      this.key = jose().importSPKI(config.public_key, alg);
    }
  }

  async verify(token: string): Promise<JWTPayload> {
    const config = this.config;
    if (!config) {
      throw invalidToken(
        'This server does not accept JWTs until it can verify them: configure general.auth.jwt ' +
          '(secret, public_key or jwks_url), or verify: false behind a gateway that verifies them.',
      );
    }
    if (config.verify === false) return decodeUnverified(token, config.clock_tolerance_seconds);
    try {
      const algorithms = config.algorithms ?? (config.secret ? HMAC : ASYMMETRIC);
      const key = await this.key;
      const { payload } = await jose().jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
        algorithms,
        issuer: config.issuer,
        audience: config.audience,
        clockTolerance: config.clock_tolerance_seconds,
      });
      return payload;
    } catch (err) {
      throw invalidToken(describe(err));
    }
  }
}

/**
 * `verify: false` trusts the signature to a gateway, not the token's lifetime: an expired or not yet
 * valid token, or one that declares no signature at all (`alg: none`), is still refused.
 */
function decodeUnverified(token: string, toleranceSeconds: number): JWTPayload {
  let alg: unknown;
  let payload: JWTPayload;
  try {
    alg = jose().decodeProtectedHeader(token).alg;
    payload = jose().decodeJwt(token);
  } catch {
    throw invalidToken('The token is not a valid JWT');
  }
  if (typeof alg !== 'string' || alg.toLowerCase() === 'none') {
    throw invalidToken("The token's algorithm is not accepted");
  }
  const now = Math.floor(Date.now() / 1000);
  if (
    payload.exp !== undefined &&
    (typeof payload.exp !== 'number' || payload.exp <= now - toleranceSeconds)
  ) {
    throw invalidToken('The token has expired');
  }
  if (
    payload.nbf !== undefined &&
    (typeof payload.nbf !== 'number' || payload.nbf > now + toleranceSeconds)
  ) {
    throw invalidToken('The token\'s "nbf" claim is not accepted');
  }
  return payload;
}

function describe(err: unknown): string {
  const { errors } = jose();
  if (err instanceof errors.JWTExpired) return 'The token has expired';
  if (err instanceof errors.JWTClaimValidationFailed)
    return `The token's "${err.claim}" claim is not accepted`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is not valid';
  if (err instanceof errors.JOSEAlgNotAllowed) return "The token's algorithm is not accepted";
  if (err instanceof errors.JWKSNoMatchingKey) return 'No key matches the token';
  if (err instanceof errors.JOSEError) return `The token is not accepted (${err.code})`;
  return 'The token could not be verified';
}
