import { Controller, Get, Req, Res, type Type } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OAuthService } from './oauth.service';
import { callbackPage } from './callback-page';

/** The OAuth2 redirect URI (`oauth2_callback_path`, default `/auth/redirect`): the provider sends the browser here. */
export function createOAuthCallbackController(path: string): Type {
  @ApiTags('OAuth')
  @Controller(path)
  class OAuthCallbackController {
    constructor(readonly oauth: OAuthService) {}

    @Get()
    @ApiOperation({
      summary: 'OAuth2 authorization-code callback: exchanges the code and resumes the workflow',
    })
    @ApiProduces('text/html')
    @ApiResponse({
      status: 200,
      description: 'Authorized; the page tells its opener (AUTH_SUCCESS) and closes',
    })
    @ApiResponse({ status: 400, description: 'Invalid state (unknown, reused or expired)' })
    @ApiResponse({ status: 502, description: 'The provider refused (error=…) or its token endpoint failed' })
    async redirect(@Req() req: Request, @Res() res: Response): Promise<void> {
      const query = new URL(req.originalUrl, 'http://callback').searchParams;
      const outcome = await this.oauth.callback(query);
      res
        .status(outcome.status)
        .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Content-Type': 'text/html; charset=utf-8' })
        .send(callbackPage(outcome.status === 200, outcome.message));
    }
  }
  return OAuthCallbackController;
}
