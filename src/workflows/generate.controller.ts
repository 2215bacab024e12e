import { Controller, HttpCode, Post, Query, Req, Res, type Type } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ChatRequestDto } from '../core/dto/chat-request.dto';
import {
  ErrorBodyDto,
  GenerateResponseDto,
  SSE_RESPONSE,
  ValidationErrorBodyDto,
} from '../core/dto/responses.dto';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { JsonBody, ValidateBodyPipe } from '../core/http/json-body';
import { requestMetadata } from '../core/http/request-metadata';
import { SseWriter } from '../core/http/sse-writer';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/execution.service';
import { followExecution } from '../executions/follow-execution';
import type { BuiltFunction } from '../runtime/function-type';
import { StepAdaptor } from '../runtime/step-adaptor';
import { generateBody, outcome } from './generate-output';
import { generateStreamRenderer, parseStepFilter, type GenerateStreamOptions } from './generate-sse.renderer';

export interface GenerateRouteOptions {
  base: string;
  /** Versioned routes are the interactive twins: `event: error` framing, prompts (next issue). */
  versioned: boolean;
  workflow: BuiltFunction;
}

/**
 * Builds the controller for one generate base path (`/v1/workflow` or legacy `/generate`). Paths come
 * from config, so the class is made per path; its body schema is the configured workflow's input.
 */
export function createGenerateController({ base, versioned, workflow }: GenerateRouteOptions): Type {
  const dto = workflow.input.kind === 'chat' ? ChatRequestDto : workflow.input.dto;
  const bodyPipe = new ValidateBodyPipe(dto);
  const tag = versioned ? 'Workflow' : 'Workflow (legacy)';

  @ApiTags(tag)
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
    constructor(
      readonly executions: ExecutionService,
      readonly config: ServerConfig,
    ) {}

    @Post()
    @ApiBody({ type: dto })
    @HttpCode(200)
    @ApiOperation({ summary: 'Run the workflow and return its output' })
    @ApiOkResponse({
      description: 'The workflow output; scalars as `{"value": …}`',
      type: GenerateResponseDto,
    })
    async generate(
      @JsonBody(bodyPipe) input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
    ) {
      const execution = await this.executions.start(input, identity, {
        request: requestMetadata(req),
        interactive: versioned,
      });
      return generateBody(outcome(await execution.done));
    }

    @Post('stream')
    @ApiBody({ type: dto })
    @ApiOperation({ summary: 'Run the workflow, streaming output and step-adapted intermediate steps' })
    @ApiProduces('text/event-stream')
    @ApiOkResponse(SSE_RESPONSE)
    async stream(
      @JsonBody(bodyPipe) input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
      @Res() res: Response,
    ): Promise<void> {
      const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
      await this.run(input, identity, req, res, { adaptor: new StepAdaptor(mode, custom_event_types) });
    }

    @Post('full')
    @ApiBody({ type: dto })
    @ApiOperation({ summary: 'Run the workflow, streaming output and raw intermediate steps' })
    @ApiQuery({
      name: 'filter_steps',
      required: false,
      description: 'Comma-separated step types to keep (e.g. LLM_END,TOOL_END), or `none`',
    })
    @ApiProduces('text/event-stream')
    @ApiOkResponse(SSE_RESPONSE)
    async full(
      @JsonBody(bodyPipe) input: object,
      @CurrentIdentity() identity: Identity,
      @Req() req: Request,
      @Res() res: Response,
      @Query('filter_steps') filterSteps?: string,
    ): Promise<void> {
      await this.run(input, identity, req, res, { raw: true, filter: parseStepFilter(filterSteps) });
    }

    private async run(
      input: object,
      identity: Identity,
      req: Request,
      res: Response,
      steps: GenerateStreamOptions['steps'],
    ): Promise<void> {
      const writer = new SseWriter(res, this.config.frontEnd.sse_keepalive_seconds * 1000);
      writer.open();
      const execution = await this.executions.start(input, identity, {
        request: requestMetadata(req),
        interactive: versioned,
      });
      writer.onDisconnect(() => execution.cancel('client disconnected'));
      await followExecution(
        execution,
        generateStreamRenderer(writer, { steps, errors: versioned ? 'event' : 'bare' }),
      );
    }
  }

  Object.defineProperty(GenerateController, 'name', {
    value: versioned ? 'WorkflowController' : 'LegacyGenerateController',
  });
  return GenerateController;
}
