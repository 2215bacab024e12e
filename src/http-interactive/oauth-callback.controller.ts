import { Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import express, { type Request, type Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { cookiesOf } from '../core/http/request-metadata';
import { OAuthService, type ConfirmPage, type StartOutcome } from '../oauth/oauth.service';
import { callbackPage, confirmPage, confirmPagePolicy, openerOrigins } from './callback-page';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const HTML = { ...NO_STORE, 'Content-Type': 'text/html; charset=utf-8' };
/** The confirmation form: one short field, nothing else read. */
const readForm = express.urlencoded({ extended: false, limit: 2048, parameterLimit: 4 });

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
      'Opens an authorization (the auth_url of oauth_required): binds it to this browser and redirects to the provider; an anonymous flow shows a confirmation page first',
  })
  @ApiQuery({ name: 'state', description: 'The oauth_state of the flow' })
  @ApiProduces('text/html')
  @ApiResponse({ status: 302, description: 'To the provider; sets the HttpOnly cookie the callback needs' })
  @ApiResponse({
    status: 200,
    description:
      'An anonymous flow: a page naming the workflow and the provider, whose form (POST, single-use token) goes on',
  })
  @ApiResponse({ status: 400, description: 'Invalid state (unknown, used or expired)' })
  @ApiResponse({
    status: 403,
    description:
      'The flow belongs to another user, or (anonymous flow) was opened in another browser or in one that carries an identity',
  })
  async start(
    @CurrentIdentity() identity: Identity,
    @Query('state') state: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    this.answer(req, res, await this.oauth.begin(typeof state === 'string' ? state : '', identity));
  }

  @Post('start')
  @ApiOperation({
    summary:
      "The confirmation page's form (anonymous flows): binds the flow to this browser and redirects to the provider",
  })
  @ApiQuery({ name: 'state', description: 'The oauth_state of the flow' })
  @ApiProduces('text/html')
  @ApiResponse({ status: 303, description: 'To the provider; sets the HttpOnly cookie the callback needs' })
  @ApiResponse({ status: 400, description: 'Invalid state (unknown, used or expired)' })
  @ApiResponse({
    status: 403,
    description:
      "Not this browser's page (token missing, used, replaced, or posted from another site), or the browser carries an identity",
  })
  async confirm(
    @CurrentIdentity() identity: Identity,
    @Query('state') state: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const form = await this.formOf(req, res);
    const fetchSite = req.headers['sec-fetch-site'];
    const outcome = await this.oauth.confirm(typeof state === 'string' ? state : '', identity, {
      form: form?.confirm,
      cookies: cookiesOf(req.headers),
      fetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
    });
    this.answer(req, res, outcome);
  }

  /** The urlencoded form of the confirmation page; undefined for any other body. */
  private formOf(req: Request, res: Response): Promise<Record<string, string> | undefined> {
    if (!req.is('application/x-www-form-urlencoded')) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      readForm(req, res, (err?: unknown) => {
        const body = req.body as Record<string, unknown> | undefined;
        resolve(err || typeof body?.confirm !== 'string' ? undefined : { confirm: body.confirm });
      });
    });
  }

  private answer(req: Request, res: Response, outcome: StartOutcome): void {
    if (outcome.status === 200) return this.showConfirmation(req, res, outcome.confirm);
    if (outcome.status !== 302) {
      res.status(outcome.status).set(HTML).send(callbackPage(false, outcome.message));
      return;
    }
    if (outcome.clearCookie) res.clearCookie(outcome.clearCookie, { path: this.cookiePath });
    res
      .cookie(outcome.binding.cookieName, outcome.binding.value, {
        httpOnly: true,
        sameSite: 'lax',
        secure: req.secure,
        path: this.cookiePath,
        maxAge: outcome.maxAgeSeconds * 1000,
      })
      .set({ ...NO_STORE, 'Referrer-Policy': 'no-referrer' })
      // 303 after the confirmation's POST: the browser follows it with a GET.
      .redirect(req.method === 'POST' ? 303 : 302, outcome.location);
  }

  private showConfirmation(req: Request, res: Response, page: ConfirmPage): void {
    res
      .cookie(page.cookieName, page.token, {
        httpOnly: true,
        // Never sent with a post another site's page makes, so only this page's form confirms.
        sameSite: 'strict',
        secure: req.secure,
        path: this.cookiePath,
        maxAge: page.maxAgeSeconds * 1000,
      })
      .status(200)
      .set({ ...HTML, 'Content-Security-Policy': confirmPagePolicy(page.providerOrigin) })
      .send(confirmPage(page));
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
