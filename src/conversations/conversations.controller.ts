import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
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

const ANONYMOUS = 'The caller has no identity (no session cookie, API key or token)';
const NOT_FOUND = 'No conversation of the caller has this id';

/** The built-in page's conversations, kept per identity (docs/ui.md#conversations). */
@ApiTags('Conversations')
@ApiUnauthorizedResponse({ description: ANONYMOUS })
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
  @ApiNotFoundResponse({ description: NOT_FOUND })
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
  @ApiPayloadTooLargeResponse({ description: 'The turns are more than 512 KiB of JSON' })
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
  @ApiNotFoundResponse({ description: NOT_FOUND })
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
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async remove(
    @CurrentIdentity() identity: Identity,
    @Param('id', new ConversationIdPipe()) id: string,
  ): Promise<void> {
    await this.conversations.remove(identity, id);
  }
}
