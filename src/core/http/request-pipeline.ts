import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { composeMiddleware } from './compose-middleware';

/**
 * Where in a request's passage a module's middleware runs: logging first (so a request refused before
 * routing is logged too), then core's (headers, CORS, body, proxies, stream caps, identity), then the
 * monitoring that needs to know who asked.
 */
export type PipelineStage = 'logging' | 'core' | 'monitoring';

const ORDER: readonly PipelineStage[] = ['logging', 'core', 'monitoring'];

/**
 * Every middleware a request passes before its route, in one place. Modules add theirs while they
 * are constructed, and CoreModule mounts the whole pipeline as one Nest middleware: the order is
 * written here rather than left to the order modules are imported in, and a request pays for one
 * Express layer and one Nest wrapper instead of one per module.
 */
@Injectable()
export class RequestPipeline {
  private readonly stages = new Map<PipelineStage, RequestHandler[]>();
  private composed?: RequestHandler;

  use(stage: PipelineStage, ...handlers: RequestHandler[]): void {
    if (this.composed) throw new Error('The request pipeline is already in use: add middleware at start-up');
    this.stages.set(stage, [...(this.stages.get(stage) ?? []), ...handlers]);
  }

  /** Runs every stage's middleware in order, then `next` (or `next(err)` at the first error). */
  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    this.composed ??= composeMiddleware(ORDER.flatMap((stage) => this.stages.get(stage) ?? []));
    this.composed(req, res, next);
  };
}
