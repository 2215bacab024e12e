import type { MiddlewareConsumer } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { composeMiddleware } from './compose-middleware';
import { ALL_ROUTES } from './route-paths';

/**
 * The middleware a module runs on every request before its route. A module with some provides its
 * own (LoggingModule's `RequestLogging`, CoreModule's `HttpMiddleware`, MonitoringModule's
 * `MonitoringMiddleware`), and the composition root mounts them together (`mountAsOne`), in the order
 * it names: a request then pays one Express layer and one Nest wrapper, not one per module.
 */
export interface RequestMiddleware {
  readonly handlers: readonly RequestHandler[];
}

/** Mounts the middleware of `parts` (in order; absent ones skipped) as one Nest middleware on every route. */
export function mountAsOne(consumer: MiddlewareConsumer, parts: (RequestMiddleware | undefined)[]): void {
  const handlers = parts.flatMap((part) => part?.handlers ?? []);
  if (handlers.length > 0) consumer.apply(composeMiddleware(handlers)).forRoutes(ALL_ROUTES);
}
