import type { IncomingMessage } from 'node:http';
import { Body, Controller, Get, HttpCode, Module, Post, Query, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, Request } from 'express';
import { InterludeExpressAdapter } from './express-adapter';

@Controller('probe')
class ProbeController {
  @Post()
  @HttpCode(200)
  echo(@Body() body: { message: string }, @Req() req: Request) {
    return { value: body.message, path: req.path, ip: typeof req.ip };
  }

  @Get()
  query(@Query('q') q: string) {
    return { q };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('InterludeExpressAdapter', () => {
  let app: NestExpressApplication;
  let base: string;
  const arrivals: object[] = [];

  beforeAll(async () => {
    app = await NestFactory.create<NestExpressApplication>(ProbeModule, new InterludeExpressAdapter(), {
      logger: false,
    });
    // Before Express sees the request: what node:http made it.
    app.getHttpServer().prependListener('request', (req: IncomingMessage) => {
      arrivals.push(Object.getPrototypeOf(req) as object);
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(() => app.close());

  it('hands Express requests and responses already made with its prototypes', async () => {
    const express = app.getHttpAdapter().getInstance() as Express;
    const res = await fetch(`${base}/probe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('etag')).toMatch(/^W\/"/);
    expect(await res.json()).toEqual({ value: 'hello', path: '/probe', ip: 'string' });
    expect(arrivals.at(-1)).toBe(express.request);
  });

  it('keeps every Express request feature: query parsing, 404s', async () => {
    expect(await (await fetch(`${base}/probe?q=x%20y`)).json()).toEqual({ q: 'x y' });
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
  });
});
