import {
  Catch,
  Controller,
  Get,
  Inject,
  Injectable,
  Req,
  Res,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { AppExceptionFilter } from '../core/http/app-exception.filter';
import { publicOrigin } from '../core/http/public-origin';
import { Public } from '../core/identity/public.decorator';

export const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The MCP endpoint's URL: the protected resource of RFC 9728. */
function resourceOf(config: ServerConfig, req: Request, res: Response): string {
  const base = publicOrigin(config.frontEnd.public_base_url, req, res);
  return `${base}${config.frontEnd.root_path}${config.frontEnd.mcp_path}`;
}

/**
 * MCP authorization (2025-06-18 and later): a client without a credential is told where the resource's
 * metadata is (`WWW-Authenticate: Bearer resource_metadata="…"`), whether this face refused it or the
 * identity guard did (`general.auth.require_identity`). Other errors are answered as everywhere.
 */
@Injectable()
@Catch(AppError)
export class McpUnauthorizedFilter implements ExceptionFilter {
  private readonly fallback = new AppExceptionFilter();

  constructor(@Inject(ServerConfig) private readonly config: ServerConfig) {}

  catch(error: AppError, host: ArgumentsHost): void {
    if (error.code !== ErrorCode.Unauthorized) return this.fallback.catch(error, host);
    const http = host.switchToHttp();
    const base = publicOrigin(this.config.frontEnd.public_base_url, http.getRequest(), http.getResponse());
    const metadata = `${base}${WELL_KNOWN}`;
    const challenge = new AppError(error.code, error.message, {
      ...error.extra,
      headers: { ...error.extra.headers, 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` },
    });
    this.fallback.catch(challenge, host);
  }
}

/** RFC 9728 protected resource metadata of the MCP endpoint: the resource and who issues its tokens. */
@ApiExcludeController()
@Controller()
export class ProtectedResourceController {
  constructor(private readonly config: ServerConfig) {}

  // Read before any credential: it says which credential to get (RFC 9728), so it is open to all.
  @Public()
  @Get(WELL_KNOWN)
  metadata(@Req() req: Request, @Res({ passthrough: true }) res: Response): Record<string, unknown> {
    const issuer = this.config.general.auth.jwt?.issuer;
    const issuers = issuer === undefined ? [] : Array.isArray(issuer) ? issuer : [issuer];
    return {
      resource: resourceOf(this.config, req, res),
      ...(issuers.length > 0 ? { authorization_servers: issuers } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Interlude',
    };
  }
}
