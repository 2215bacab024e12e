import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { DetailBodyDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';
import { ExecutionListDto } from './dto/execution-list.dto';
import { ExecutionList, MAX_LIST_LIMIT, type ListQuery } from './execution-list';

@ApiTags('Executions')
@ApiCommonErrors()
@Controller('executions')
export class ExecutionListController {
  constructor(private readonly waiting: ExecutionList) {}

  @Get()
  @ApiOperation({
    summary: "The caller's executions waiting for a person (approvals inbox), newest first, paginated",
  })
  @ApiQuery({
    name: 'status',
    required: false,
    description: 'interaction_required, oauth_required, or both separated by | (the default)',
    example: 'interaction_required|oauth_required',
  })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT },
  })
  @ApiQuery({ name: 'cursor', required: false, description: 'The next_cursor of the previous page' })
  @ApiOkResponse({ type: ExecutionListDto })
  @ApiBadRequestResponse({ type: DetailBodyDto, description: 'A status, limit or cursor it cannot use' })
  list(@CurrentIdentity() identity: Identity, @Query() query: ListQuery): Promise<ExecutionListDto> {
    return this.waiting.list(identity, query);
  }
}
