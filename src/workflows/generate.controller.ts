import { Controller, Delete, Get, HttpCode, Post, Put, Query, Req, Res, type Type } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { functionInputDto } from '../http-executions/dto/function-input.dto';
import {
  ErrorBodyDto,
  GenerateResponseDto,
  PausedExecutionDto,
  SSE_RESPONSE,
  TRACE_HEADER_DOC,
  ValidationErrorBodyDto,
} from '../http-executions/dto/responses.dto';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { JsonBody, ValidateBodyPipe } from '../core/http/json-body';
import { ExecutionResponder, type Face } from '../http-executions/execution-responder';
import type { EndpointMethod } from '../config/nat-front-end.schema';
import type { BuiltFunction } from '../runtime/function-type';
import { GENERATE_FACE, type GenerateFaceOptions } from './generate-face';
import { parseStepFilter } from './generate-sse.renderer';

export interface GenerateRouteOptions {
  base: string;
  /** Versioned routes are interactive (prompts, 202, typed events); legacy ones are not. */
  versioned: boolean;
  workflow: BuiltFunction;
  /** The versioned base path, named in the error when a workflow asks on a legacy route. */
  interactiveBase: string | null;
  /** An extra endpoint (`general.front_end.endpoints`): `workflow` is its function, run in its place. */
  endpoint?: { method: EndpointMethod; description: string; name: string };
}

const ROUTE_DECORATORS = { GET: Get, POST: Post, PUT: Put, DELETE: Delete };

/**
 * Builds the controller for one generate base path (`/v1/workflow` or legacy `/generate`). Paths come
 * from config, so the class is made per path; its body schema is the configured workflow's input.
 */
export function createGenerateController({
  base,
  versioned,
  workflow,
  interactiveBase,
  endpoint,
}: GenerateRouteOptions): Type {
  const dto = functionInputDto(workflow);
  const bodyPipe = new ValidateBodyPipe(dto);
  const Route = ROUTE_DECORATORS[endpoint?.method ?? 'POST'];
  // NAT serves GET endpoints without a body; here their input comes from the query string.
  const fromQuery = endpoint?.method === 'GET' || endpoint?.method === 'DELETE';
  const Input = fromQuery ? () => Query(new ValidateBodyPipe(dto, 'query')) : () => JsonBody(bodyPipe);
  const DocInput = fromQuery ? ApiQuery({ type: dto }) : ApiBody({ type: dto });
  const summary = (text: string) => ApiOperation({ summary: endpoint?.description || text });

  @ApiTags(endpoint ? 'Endpoints' : versioned ? 'Workflow' : 'Workflow (legacy)')
  @ApiExtraModels(ErrorBodyDto, ValidationErrorBodyDto, GenerateResponseDto)
  @ApiUnprocessableEntityResponse({
    description: 'Invalid body (`detail` list) or the workflow failed (`code: workflow_error`)',
    schema: {
      oneOf: [{ $ref: getSchemaPath(ValidationErrorBodyDto) }, { $ref: getSchemaPath(ErrorBodyDto) }],
    },
  })
  @ApiPayloadTooLargeResponse({ description: 'Body larger than `max_body_bytes`' })
  @Controller(base)
  class GenerateController {
    constructor(readonly responder: ExecutionResponder) {}

    @Route()
    @HttpCode(200)
    @DocInput
    @summary('Run the workflow and return its output')
    @ApiOkResponse({
      description: 'The workflow output; scalars as `{"value": …}`',
      type: GenerateResponseDto,
      ...TRACE_HEADER_DOC,
    })
    @ApiAcceptedResponse({
      type: PausedExecutionDto,
      description: 'Paused for a person or an OAuth authorization',
      ...TRACE_HEADER_DOC,
    })
    @ApiTooManyRequestsResponse({ description: 'Too many executions waiting for people (Retry-After)' })
    async generate(
      @Input() input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
      @Res({ passthrough: true }) res: Response,
    ) {
      const { status, body } = await this.responder.reply(input, identity, req, this.face('/'));
      res.status(status);
      return body;
    }

    @Route('stream')
    @DocInput
    @summary('Run the workflow, streaming output and step-adapted intermediate steps')
    @ApiProduces('text/event-stream')
    @ApiOkResponse({ ...SSE_RESPONSE, ...TRACE_HEADER_DOC })
    async stream(
      @Input() input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
      @Res() res: Response,
    ): Promise<void> {
      await this.responder.stream(input, identity, req, res, this.face('/stream', 'adapted'));
    }

    @Route('full')
    @DocInput
    @summary('Run the workflow, streaming output and raw intermediate steps')
    @ApiQuery({
      name: 'filter_steps',
      required: false,
      description: 'Comma-separated step types to keep (e.g. LLM_END,TOOL_END), or `none`',
    })
    @ApiProduces('text/event-stream')
    @ApiOkResponse({ ...SSE_RESPONSE, ...TRACE_HEADER_DOC })
    async full(
      @Input() input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
      @Res() res: Response,
      @Query('filter_steps') filterSteps?: string,
    ): Promise<void> {
      const filter = parseStepFilter(filterSteps);
      const raw = filter instanceof Set ? [...filter] : filter;
      await this.responder.stream(input, identity, req, res, this.face('/full', { raw }));
    }

    private face(suffix: string, steps: GenerateFaceOptions['steps'] = { raw: 'all' }): Face {
      const options: GenerateFaceOptions = {
        steps,
        errors: versioned ? 'event' : 'bare',
        interactive: versioned,
      };
      return {
        ref: { name: GENERATE_FACE, options },
        workflow: endpoint ? workflow : undefined,
        interactive: versioned,
        interactiveRoute:
          interactiveBase === null ? undefined : `${interactiveBase}${suffix === '/' ? '' : suffix}`,
      };
    }
  }

  Object.defineProperty(GenerateController, 'name', {
    value: endpoint ? endpoint.name : versioned ? 'WorkflowController' : 'LegacyGenerateController',
  });
  return GenerateController;
}
