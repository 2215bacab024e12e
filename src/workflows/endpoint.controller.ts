import { Body, Controller, Delete, Get, Put, Query, Req, Res, type Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { EndpointMethod } from '../config/nat-front-end.schema';
import {
  FullOperation,
  GenerateOperation,
  GenerateRoutes,
  PostGenerateRoutes,
  StreamOperation,
} from './generate.controller';
import { GenerateInputPipe } from './generate-route';

/*
 * NAT's `general.front_end.endpoints`: a function of `functions:` served at a path of its own, with the
 * method the config gives, the way the workflow is served at `/v1/workflow`. GET and DELETE take the
 * input from the query string (NAT serves them without a body).
 */

@ApiTags('Endpoints')
@Controller()
export class EndpointController extends PostGenerateRoutes {}

@ApiTags('Endpoints')
@Controller()
export class PutEndpointController extends GenerateRoutes {
  @Put()
  @GenerateOperation()
  generate(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(input, identity, req, res);
  }

  @Put('stream')
  @StreamOperation()
  stream(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.streamAdapted(input, identity, req, res);
  }

  @Put('full')
  @FullOperation()
  full(
    @Body(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
    @Query('filter_steps') filterSteps?: string,
  ): Promise<void> {
    return this.streamRaw(input, identity, req, res, filterSteps);
  }
}

@ApiTags('Endpoints')
@Controller()
export class GetEndpointController extends GenerateRoutes {
  @Get()
  @GenerateOperation()
  generate(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(input, identity, req, res);
  }

  @Get('stream')
  @StreamOperation()
  stream(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.streamAdapted(input, identity, req, res);
  }

  @Get('full')
  @FullOperation()
  full(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
    @Query('filter_steps') filterSteps?: string,
  ): Promise<void> {
    return this.streamRaw(input, identity, req, res, filterSteps);
  }
}

@ApiTags('Endpoints')
@Controller()
export class DeleteEndpointController extends GenerateRoutes {
  @Delete()
  @GenerateOperation()
  generate(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(input, identity, req, res);
  }

  @Delete('stream')
  @StreamOperation()
  stream(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.streamAdapted(input, identity, req, res);
  }

  @Delete('full')
  @FullOperation()
  full(
    @Query(GenerateInputPipe) input: object,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
    @Query('filter_steps') filterSteps?: string,
  ): Promise<void> {
    return this.streamRaw(input, identity, req, res, filterSteps);
  }
}

/** The controller that serves an endpoint configured with `method`. */
export const ENDPOINT_CONTROLLERS: Record<EndpointMethod, Type> = {
  POST: EndpointController,
  PUT: PutEndpointController,
  GET: GetEndpointController,
  DELETE: DeleteEndpointController,
};
