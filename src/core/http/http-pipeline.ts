import { Injectable } from '@nestjs/common';
import type { RequestHandler } from 'express';
import cors from 'cors';
import { trustProxies, streamCaps } from './connection-caps';
import type { TrustedProxy, UntrustedForwardedFor } from './client-address';
import type { CorsConfig } from './cors.config';
import { corsOptions } from './cors';
import type { SocketOrigins } from './allowed-origin';
import type { HostCheck } from './host-check';
import { jsonBodyParser, type BodyLimits } from './json-body';
import type { Routes } from './route-paths';
import { securityHeaders } from './security-headers';
import type { RequestMiddleware } from './request-middleware';
import { RouteTable, type StreamRoutes } from './route-table';

/** What the HTTP middleware takes from config (`general.front_end`), in core's terms. */
export abstract class HttpSettings {
  abstract readonly routes: Routes;
  abstract readonly cors: CorsConfig;
  abstract readonly body: BodyLimits;
  /** `trust_proxy`: the proxies whose `X-Forwarded-For` names the caller. */
  abstract readonly trusted: TrustedProxy;
  /** Warns once when a peer not in `trust_proxy` sends `X-Forwarded-For` (HTTP and WebSocket share it). */
  abstract readonly untrustedForwardedFor: UntrustedForwardedFor;
  /** The names the server answers to (`allowed_hosts` and the rest), for HTTP and WebSocket alike. */
  abstract readonly hosts: HostCheck;
  /** The pages that may open a WebSocket. */
  abstract readonly socketOrigins: SocketOrigins;
  /** `max_streams_per_address`, `max_reattached_streams_per_execution`. */
  abstract readonly streams: { perAddress: number; perExecution: number };
}

/**
 * The middleware a request passes before routing, in order: security headers; the Host check (421 for a
 * name this server does not answer to, before anything reads the request); CORS, when an origin
 * is allowed (with none there is nothing to answer); the JSON body, with its limits; the trusted
 * proxies; the caps on open streams, which read the body (a chat completion streams when it says so).
 * Which routes stream comes from the route table (handlers marked `@Streams()`).
 */
export function httpPipeline(settings: HttpSettings, table: RouteTable): RequestHandler[] {
  // The table is read at the first request, once every module has registered its routes.
  const streams: StreamRoutes = {
    byPath: (path) => table.streams.byPath(path),
    byBody: (path) => table.streams.byBody(path),
    reattached: (path) => table.streams.reattached(path),
  };
  const { allow_origins, allow_origin_regex } = settings.cors;
  return [
    securityHeaders(settings.routes),
    settings.hosts.middleware as RequestHandler,
    ...(allow_origins.length > 0 || allow_origin_regex ? [cors(corsOptions(settings.cors))] : []),
    jsonBodyParser(settings.body, streams),
    trustProxies(settings.trusted, settings.untrustedForwardedFor),
    streamCaps(streams, { ...settings.streams, trusted: settings.trusted }),
  ];
}

/** CoreModule's middleware (`httpPipeline`), mounted by the composition root with the others (`mountAsOne`). */
@Injectable()
export class HttpMiddleware implements RequestMiddleware {
  readonly handlers: readonly RequestHandler[];
  constructor(settings: HttpSettings, routes: RouteTable) {
    this.handlers = httpPipeline(settings, routes);
  }
}
