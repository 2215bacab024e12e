import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';

import { OpenAiErrorDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { OpenAiExceptionFilter } from '../http-responders/openai-exception.filter';
import { CREATE_RESPONSE_DOC, RESPONSE_DOC } from './openapi';
import { parseResponseRequest } from './response-request';
import { EXECUTION_HEADER, ResponsesService } from './responses.service';
import { StoredResponses } from './stored-responses';
import type { ResponseObject } from './response-object';

/** OpenAI's Responses API: create (whole, streamed or in the background), retrieve, list input, cancel, delete. */
@ApiTags('OpenAI Responses')
@UseFilters(OpenAiExceptionFilter)
@ApiBadRequestResponse({ type: OpenAiErrorDto, description: 'Invalid request (OpenAI error shape)' })
@ApiCommonErrors(OpenAiErrorDto)
@Controller()
export class ResponsesController {
  constructor(
    private readonly responses: ResponsesService,
    private readonly stored: StoredResponses,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a response (stream: true streams Responses events; background: true answers at once)',
    description:
      'The response of a workflow that asks a person ends `completed` with a `function_call` item; the next ' +
      'response answers it with a `function_call_output` and `previous_response_id`. `X-Execution-Id` names the execution.',
  })
  @ApiBody({ schema: CREATE_RESPONSE_DOC })
  @ApiOkResponse({
    description: 'The response, or with `stream: true` a text/event-stream of `event:` + `data:` frames',
    content: {
      'application/json': { schema: RESPONSE_DOC },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({
    type: OpenAiErrorDto,
    description: 'previous_response_id names no response of yours',
  })
  @ApiErrorResponses(
    {
      413: 'Body larger than `max_body_bytes` (`max_stream_body_bytes` with `stream: true`)',
      429: 'Too many executions waiting for people, or too many streams open from your address (Retry-After)',
    },
    OpenAiErrorDto,
  )
  async create(
    @Body() body: unknown,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.responses.create(identity, parseResponseRequest(body), req, res);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Retrieve a stored response; `stream=true` streams it again after `starting_after`',
  })
  @ApiQuery({ name: 'stream', required: false, type: Boolean })
  @ApiQuery({ name: 'starting_after', required: false, type: Number })
  @ApiOkResponse({
    description: 'The response, or with `stream=true` a text/event-stream of its events',
    content: {
      'application/json': { schema: RESPONSE_DOC },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  @ApiNotFoundResponse({ type: OpenAiErrorDto, description: 'No response of yours has this id' })
  async retrieve(
    @Param('id') id: string,
    @Query('stream') stream: string | undefined,
    @Query('starting_after') startingAfter: string | undefined,
    @CurrentIdentity() identity: Identity,
    @Res() res: Response,
  ): Promise<void> {
    if (stream === 'true') {
      const after = Number(startingAfter ?? -1);
      await this.stored.stream(identity, id, Number.isInteger(after) ? after : -1, res);
      return;
    }
    const stored = await this.stored.current(identity, id);
    res.setHeader(EXECUTION_HEADER, stored.executionId);
    res.json(stored.response);
  }

  @Get(':id/input_items')
  @ApiOperation({ summary: "A stored response's input items (newest first unless order=asc)" })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1..100, default 20' })
  @ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'] })
  @ApiQuery({ name: 'after', required: false, description: 'An item id: list the items after it' })
  @ApiOkResponse({ description: 'A list of input items', schema: { type: 'object' } })
  @ApiNotFoundResponse({ type: OpenAiErrorDto, description: 'No response of yours has this id' })
  inputItems(
    @Param('id') id: string,
    @Query('limit') limit: string | undefined,
    @Query('order') order: string | undefined,
    @Query('after') after: string | undefined,
    @CurrentIdentity() identity: Identity,
  ) {
    const n = Number(limit ?? 20);
    return this.stored.inputItems(identity, id, {
      limit: Number.isInteger(n) ? Math.min(Math.max(n, 1), 100) : 20,
      order: order === 'asc' ? 'asc' : 'desc',
      after,
    });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a stored response' })
  @ApiOkResponse({
    description: '`{id, object: "response.deleted", deleted: true}`',
    schema: { type: 'object' },
  })
  @ApiNotFoundResponse({ type: OpenAiErrorDto, description: 'No response of yours has this id' })
  delete(@Param('id') id: string, @CurrentIdentity() identity: Identity) {
    return this.stored.delete(identity, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a background response: its workflow stops, the response ends cancelled' })
  @ApiOkResponse({ schema: RESPONSE_DOC, description: 'The response' })
  @ApiNotFoundResponse({ type: OpenAiErrorDto, description: 'No response of yours has this id' })
  cancel(@Param('id') id: string, @CurrentIdentity() identity: Identity): Promise<ResponseObject> {
    return this.stored.cancel(identity, id);
  }
}
