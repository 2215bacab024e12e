import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { ApiErrorResponses, COMMON_ERRORS } from '../http-responders/dto/error-responses.decorator';
import {
  ConversationDto,
  ConversationListDto,
  ConversationQueryDto,
  ConversationRenameDto,
  ConversationSummaryDto,
  ConversationWriteDto,
} from './dto/conversation.dto';
import {
  ConversationIdPipe,
  ConversationQueryPipe,
  ConversationRenamePipe,
  type ConversationQuery,
  ConversationWritePipe,
} from './conversations.pipes';
import { ConversationsService } from './conversations.service';

const ANONYMOUS =
  'The caller has no identity (no session cookie, API key or token), or the credential it sent was refused';
const NOT_FOUND = 'No conversation of the caller has this id';

/** The built-in page's conversations, kept per identity (docs/ui.md#conversations). */
@ApiTags('Conversations')
@ApiErrorResponses({ 401: ANONYMOUS, 503: COMMON_ERRORS[503] })
@Controller('conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiOperation({
    summary:
      "The caller's conversations, most recently updated first; `q` searches them, `interaction_id` finds " +
      'the one a prompt was asked in',
  })
  @ApiQuery({ type: ConversationQueryDto })
  @ApiOkResponse({ type: ConversationListDto })
  @ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
  async list(
    @CurrentIdentity() identity: Identity,
    @Query(new ConversationQueryPipe()) query: ConversationQuery,
  ): Promise<ConversationListDto> {
    return { items: await this.conversations.list(identity, query) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One conversation with its turns' })
  @ApiOkResponse({ type: ConversationDto })
  @ApiErrorResponses({ 404: NOT_FOUND })
  get(
    @CurrentIdentity() identity: Identity,
    @Param('id', new ConversationIdPipe()) id: string,
  ): Promise<ConversationDto> {
    return this.conversations.get(identity, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Creates or replaces a conversation (the page saves it as it changes)' })
  @ApiBody({ type: ConversationWriteDto })
  @ApiOkResponse({ type: ConversationSummaryDto })
  @ApiErrorResponses({
    413: 'The turns are more than 512 KiB of JSON, or the body more than `max_body_bytes`',
  })
  @ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
  put(
    @CurrentIdentity() identity: Identity,
    @Param('id', new ConversationIdPipe()) id: string,
    @Body(new ConversationWritePipe()) body: ConversationWriteDto,
  ): Promise<ConversationSummaryDto> {
    return this.conversations.put(identity, id, body);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Renames a conversation' })
  @ApiBody({ type: ConversationRenameDto })
  @ApiOkResponse({ type: ConversationSummaryDto })
  @ApiErrorResponses({ 404: NOT_FOUND, 413: 'Body larger than `max_body_bytes`' })
  @ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
  rename(
    @CurrentIdentity() identity: Identity,
    @Param('id', new ConversationIdPipe()) id: string,
    @Body(new ConversationRenamePipe()) title: string,
  ): Promise<ConversationSummaryDto> {
    return this.conversations.rename(identity, id, title);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Deletes a conversation' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses({ 404: NOT_FOUND })
  async remove(
    @CurrentIdentity() identity: Identity,
    @Param('id', new ConversationIdPipe()) id: string,
  ): Promise<void> {
    await this.conversations.remove(identity, id);
  }
}
