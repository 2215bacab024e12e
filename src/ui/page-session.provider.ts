import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { ServerConfig } from '../config/server-config';
import { trustedProxies, type TrustedProxy } from '../core/http/client-address';
import { PageSessions, reachedOverHttps } from './page-session';

/** The page's session cookie settings, from config: the signing key and when the cookie is `Secure`. */
@Injectable()
export class PageSession {
  readonly sessions: PageSessions;
  private readonly publicBaseUrl: string | undefined;
  private readonly trusted: TrustedProxy;

  constructor(config: ServerConfig) {
    const frontEnd = config.general.front_end;
    const keyEnv = config.general.executions.token_key_env;
    const secret = process.env[keyEnv]?.trim() || undefined;
    this.sessions = PageSessions.withSecret(secret);
    this.publicBaseUrl = frontEnd.public_base_url;
    this.trusted = trustedProxies(frontEnd.trust_proxy);
    if (!secret && config.general.executions.store === 'postgres') {
      new Logger('Page').warn(
        `${keyEnv} is not set: the page's sessions are signed with a key of this replica only, so a ` +
          `reload served by another replica starts a new session; set ${keyEnv} (the same on every replica)`,
      );
    }
  }

  secure(req: IncomingMessage): boolean {
    return reachedOverHttps(req, this.publicBaseUrl, this.trusted);
  }
}
