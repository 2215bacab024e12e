import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { cookiesOf } from '../core/http/request-metadata';
import { OAuthService } from '../oauth/oauth.service';
import { callbackPage, openerOrigins } from './callback-page';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const HTML = { ...NO_STORE, 'Content-Type': 'text/html; charset=utf-8' };

/**
 * The OAuth2 redirect URI (`oauth2_callback_path`, default `/auth/redirect`, where HttpInteractiveModule
 * mounts it), where the provider sends the browser back, and its start link (`…/start`), the `auth_url`
 * clients open first.
 */
@ApiTags('OAuth')
@Controller()
export class OAuthCallbackController {
  private readonly origins: string[];
  private readonly cookiePath: string;

  constructor(
    readonly oauth: OAuthService,
    config: ServerConfig,
  ) {
    const frontEnd = config.frontEnd;
    this.origins = openerOrigins(frontEnd.cors.allow_origins, frontEnd.public_base_url);
    this.cookiePath = frontEnd.oauth2_callback_path;
  }

  @Get('start')
  @ApiOperation({
    summary:
      'Opens an authorization (the auth_url of oauth_required): binds it to this browser and redirects to the provider',
  })
  @ApiQuery({ name: 'state', description: 'The oauth_state of the flow' })
  @ApiProduces('text/html')
  @ApiResponse({ status: 302, description: 'To the provider; sets the HttpOnly cookie the callback needs' })
  @ApiResponse({ status: 400, description: 'Invalid state (unknown, used or expired)' })
  @ApiResponse({
    status: 403,
    description: 'The flow belongs to another user, or (anonymous flow) was opened in another browser',
  })
  async start(
    @CurrentIdentity() identity: Identity,
    @Query('state') state: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const outcome = await this.oauth.begin(typeof state === 'string' ? state : '', identity);
    if (outcome.status !== 302) {
      res.status(outcome.status).set(HTML).send(callbackPage(false, outcome.message));
      return;
    }
    res
      .cookie(outcome.binding.cookieName, outcome.binding.value, {
        httpOnly: true,
        sameSite: 'lax',
        secure: req.secure,
        path: this.cookiePath,
        maxAge: outcome.maxAgeSeconds * 1000,
      })
      .set({ ...NO_STORE, 'Referrer-Policy': 'no-referrer' })
      .redirect(302, outcome.location);
  }

  @Get()
  @ApiOperation({
    summary: 'OAuth2 authorization-code callback: exchanges the code and resumes the workflow',
  })
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'Authorized; the page tells its opener (AUTH_SUCCESS, to the configured origins) and closes',
  })
  @ApiResponse({ status: 400, description: 'Invalid state (unknown, reused or expired)' })
  @ApiResponse({
    status: 403,
    description: 'This browser did not open the flow (no binding cookie) and is not its owner',
  })
  @ApiResponse({ status: 502, description: 'The provider refused (error=…) or its token endpoint failed' })
  async redirect(
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const query = new URL(req.originalUrl, 'http://callback').searchParams;
    const outcome = await this.oauth.callback(query, identity, cookiesOf(req.headers));
    if (outcome.clearCookie) res.clearCookie(outcome.clearCookie, { path: this.cookiePath });
    res
      .status(outcome.status)
      .set(HTML)
      .send(callbackPage(outcome.status === 200, outcome.message, this.origins));
  }
}
