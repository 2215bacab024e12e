import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import { IfPresent } from '../validation/if-present.decorator';
import { IsStringOrList } from '../validation/string-or-list';

// `general.auth` of the config file: declared here, where identity is resolved, and validated with the rest.

export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** How Bearer JWTs are verified. Exactly one key source, unless `verify: false` (decode only). */
export class JwtConfig {
  /** A shared secret for HS256/384/512. */
  @IfPresent() @IsString() secret?: string;
  /** A PEM public key (SPKI) for RS*, PS*, ES* or EdDSA. */
  @IfPresent() @IsString() public_key?: string;
  /** A JWKS endpoint; keys are cached and re-fetched when a token names an unknown key. */
  @IfPresent()
  @IsString()
  @Matches(/^https?:\/\//, { message: 'jwks_url must be an http(s) URL' })
  jwks_url?: string;
  /** One accepted issuer or a list of them. */
  @IfPresent() @IsStringOrList() issuer?: string | string[];
  /** One accepted audience or a list of them. */
  @IfPresent() @IsStringOrList() audience?: string | string[];
  @IfPresent() @IsArray() @IsIn(JWT_ALGORITHMS, { each: true }) algorithms?: string[];
  @IfPresent() @Min(0) @IsInt() clock_tolerance_seconds = 30;
  /** false: decode without verifying (what NeMo Agent Toolkit does). Only for trusted gateways. */
  @IfPresent() @IsBoolean() verify = true;
}

/** An API key the server accepts, stored as its SHA-256 so the config holds no usable secret. */
export class ApiKeyConfig {
  @IsDefined()
  @IsString()
  @Matches(/^sha256:[0-9a-fA-F]{64}$/, { message: 'hash must be sha256:<64 hex digits> of the key' })
  hash!: string;
  /** The user id the key identifies (used as is, e.g. in general.auth.admin). */
  @IsDefined() @IsString() @Matches(/\S/, { message: 'user_id must not be empty' }) user_id!: string;
  @IfPresent() @IsArray() @IsString({ each: true }) roles: string[] = [];
}

/** A user the server accepts with `Authorization: Basic`; the password is stored as an scrypt hash. */
export class BasicUserConfig {
  @IsDefined()
  @IsString()
  @Matches(/^[^:]+$/, { message: 'username must be non-empty, without ":"' })
  username!: string;
  @IsDefined()
  @IsString()
  @Matches(/^scrypt:[A-Za-z0-9+/]+=*:[A-Za-z0-9+/]{22,}=*$/, {
    message: 'password_hash must be scrypt:<salt base64>:<key base64> (see docs/security.md)',
  })
  password_hash!: string;
  /** The user id the user is known by; default: the username. */
  @IfPresent() @IsString() user_id?: string;
  @IfPresent() @IsArray() @IsString({ each: true }) roles: string[] = [];
}

/**
 * What one Basic check may cost the server. A check is an scrypt hash: a few tens of milliseconds of a
 * libuv thread, the pool that DNS look-ups and file reads share, so checks are bounded, and failures
 * are limited per client address and per user name.
 */
export class BasicLimitsConfig {
  /** Checks hashing at once (libuv has 4 threads unless UV_THREADPOOL_SIZE says more). */
  @IfPresent() @Min(1) @IsInt() max_concurrent_checks = 2;
  /** Checks waiting for one of those; past it a request gets 429 with Retry-After. */
  @IfPresent() @Min(0) @IsInt() max_waiting_checks = 8;
  /** Checks one client address may have running or waiting; past it that address gets 429. */
  @IfPresent() @Min(1) @IsInt() max_checks_per_address = 2;
  /** Failed checks one client address may make in the window; past it its Basic credentials get 429. */
  @IfPresent() @Min(1) @IsInt() max_failures_per_address = 10;
  /** Failed checks against one user name in the window, from anywhere; past it that name gets 429. */
  @IfPresent() @Min(1) @IsInt() max_failures_per_username = 10;
  /** The sliding window the failure limits count in, in seconds: how long a lock lasts at most. */
  @IfPresent() @Min(1) @IsInt() failure_window_seconds = 60;
  /** A credential that just failed is refused again without hashing for this long (seconds; 0: never). */
  @IfPresent() @Min(0) @IsInt() failure_cache_seconds = 30;
}

export const IDENTITY_SOURCES = ['cookie', 'jwt', 'api_key', 'basic'] as const;
export type IdentitySource = (typeof IDENTITY_SOURCES)[number];

export class AuthConfig {
  @IfPresent() @ValidateNested() @Type(() => JwtConfig) jwt?: JwtConfig;
  /** Anonymous requests get 401. */
  @IfPresent() @IsBoolean() require_identity = false;
  /**
   * Who may read /monitor/users and all feedback: user ids, or `role:<name>` for a role from a JWT
   * (roles, groups) or from api_keys / basic_users. Unset: nobody.
   */
  @IfPresent() @IsArray() @IsString({ each: true }) admin?: string[];
  /**
   * Which credentials identify a caller. Default: every source when nothing is verified (asserted
   * identity, as NeMo Agent Toolkit), only the verified ones when a JWT key, api_keys or basic_users are set.
   */
  @IfPresent() @IsArray() @IsIn(IDENTITY_SOURCES, { each: true }) sources?: IdentitySource[];
  /**
   * Whether an anonymous caller's workflow may ask for an OAuth authorization (its consent link then
   * opens only after a confirmation page). Default: on under asserted identity, off when a credential
   * is verified (JWT key, api_keys or basic_users): there, only a caller the server knows may.
   */
  @IfPresent() @IsBoolean() anonymous_oauth?: boolean;
  /** Session cookie names, in order: the first present wins (the NAT UI uses nemo-agent-toolkit-session). */
  @IfPresent()
  @IsArray()
  @IsString({ each: true })
  session_cookies: string[] = ['nat-session', 'nemo-agent-toolkit-session'];
  @IfPresent()
  @ValidateNested({ each: true })
  @IsArray()
  @Type(() => ApiKeyConfig)
  api_keys: ApiKeyConfig[] = [];
  @IfPresent()
  @ValidateNested({ each: true })
  @IsArray()
  @Type(() => BasicUserConfig)
  basic_users: BasicUserConfig[] = [];
  @IfPresent() @ValidateNested() @Type(() => BasicLimitsConfig) basic_limits = new BasicLimitsConfig();
}
