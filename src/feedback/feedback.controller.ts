import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { FeedbackQueryDto, FeedbackRequestDto } from './dto/feedback-request.dto';
import { FeedbackAddedDto, FeedbackListDto } from './dto/feedback-response.dto';
import { FeedbackBodyPipe, FeedbackQueryPipe, type FeedbackListing } from './feedback.pipes';
import { FeedbackService, type FeedbackItem } from './feedback.service';

/** NeMo Agent Toolkit's wording ("Added reaction '👍' to call <id>"), extended to comments. */
export function addedMessage(item: FeedbackItem): string {
  const what = [
    item.reaction_type !== null ? `reaction '${item.reaction_type}'` : undefined,
    item.comment !== null ? 'comment' : undefined,
  ].filter(Boolean);
  return `Added ${what.join(' and ')} to call ${item.observability_trace_id}`;
}

@ApiTags('Feedback')
@ApiCommonErrors()
@Controller('feedback')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Add a reaction, a comment or both to an answer, by its observability trace id' })
  @ApiBody({ type: FeedbackRequestDto })
  @ApiOkResponse({ type: FeedbackAddedDto })
  @ApiUnprocessableEntityResponse({
    type: ValidationErrorBodyDto,
    description:
      'No trace id, neither a reaction nor a comment, or a field too long (trace id 128 characters, ' +
      'reaction 64, comment 1024)',
  })
  @ApiErrorResponses({ 404: 'The trace belongs to another user', 413: 'Body larger than `max_body_bytes`' })
  async add(
    @CurrentIdentity() identity: Identity,
    @Body(new FeedbackBodyPipe()) body: FeedbackRequestDto,
  ): Promise<FeedbackAddedDto> {
    return { message: addedMessage(await this.feedback.add(identity, body)) };
  }

  @Get()
  @ApiOperation({
    summary:
      "With observability_trace_id: the caller's feedback on that answer, oldest first. Without: the " +
      "caller's own feedback on every answer, newest first, paged by limit and cursor (next_cursor). " +
      "An admin (general.auth.admin) sees everyone's; an anonymous caller lists none without a trace id",
  })
  // The pipe turns the query into what to list; its fields are documented from the DTO.
  @ApiQuery({ type: FeedbackQueryDto })
  @ApiOkResponse({ type: FeedbackListDto })
  @ApiUnprocessableEntityResponse({
    type: ValidationErrorBodyDto,
    description:
      'An empty or too long parameter, a limit outside 1-100, a cursor this server did not hand out, or ' +
      'limit/cursor with observability_trace_id',
  })
  async list(
    @CurrentIdentity() identity: Identity,
    @Query(new FeedbackQueryPipe()) query: FeedbackListing,
  ): Promise<FeedbackListDto> {
    if (query.trace) return { items: await this.feedback.list(identity, query.trace) };
    return this.feedback.page(identity, query.page);
  }
}
