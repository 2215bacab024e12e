import { Controller, Get, Optional, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { parse as parseCookies, serialize } from 'cookie';
import type { Request, Response } from 'express';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { Page } from '../core/http/page.decorator';
import { RequestLog } from '../core/logging/request-log';
import { PageFiles } from './page-files';
import { sendPageFile } from './page-headers';
import { PageSession } from './page-session.provider';
import { SESSION_COOKIE } from './page-session';

/** The built-in page, mounted at `general.front_end.ui_path` by UiModule. */
@ApiExcludeController()
@Page()
@Controller()
export class UiController {
  constructor(
    private readonly files: PageFiles,
    private readonly session: PageSession,
    @Optional() private readonly log?: RequestLog,
  ) {}

  @Get()
  index(@Req() req: Request, @Res() res: Response): void {
    const file = this.files.get('index.html');
    if (!file) {
      throw new AppError(ErrorCode.NotFound, 'The page is not built: run `npm run build`');
    }
    // A browser's first visit gets a session of its own; reloads keep it, so its runs are found
    // again. A value this server did not issue is replaced, never adopted.
    const current = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (!this.session.sessions.issued(current)) {
      res.setHeader(
        'Set-Cookie',
        serialize(SESSION_COOKIE, this.session.sessions.issue(), {
          path: '/',
          httpOnly: true,
          secure: this.session.secure(req),
          sameSite: 'lax',
          maxAge: 30 * 24 * 3600,
        }),
      );
    }
    sendPageFile(req, res, file);
  }

  @Get('icon.svg')
  icon(@Req() req: Request, @Res() res: Response): void {
    this.send(req, res, 'icon.svg');
  }

  @Get('assets/:name')
  asset(@Req() req: Request, @Res() res: Response, @Param('name') name: string): void {
    this.send(req, res, `assets/${name}`);
  }

  /** The page's script, stylesheet and icon: fetched with each visit, logged only when they fail. */
  private send(req: Request, res: Response, name: string): void {
    this.log?.quiet(req);
    const file = this.files.get(name);
    if (!file) throw new AppError(ErrorCode.NotFound, 'Not Found');
    sendPageFile(req, res, file);
  }
}
