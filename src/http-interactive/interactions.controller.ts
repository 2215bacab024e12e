import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { DetailBodyDto, ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';
import type { Identity } from '../core/identity/identity';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import { ValidateBodyPipe } from '../core/validation/body.pipes';
import { InteractionResponseDto } from './dto/interaction-response.dto';
import { ExecutionService } from '../executions/engine/execution.service';

@ApiTags('Executions')
@ApiCommonErrors()
@Controller('executions/:id/interactions/:interactionId/response')
export class InteractionsController {
  constructor(private readonly executions: ExecutionService) {}

  @Post()
  @HttpCode(204)
  @ApiOperation({ summary: 'Answer a pending prompt; the workflow resumes' })
  @ApiBody({ type: InteractionResponseDto })
  @ApiNoContentResponse({ description: 'Accepted; the workflow resumes' })
  @ApiBadRequestResponse({ type: DetailBodyDto, description: 'The interaction has already been resolved' })
  @ApiNotFoundResponse({ type: DetailBodyDto, description: 'Unknown execution or interaction' })
  @ApiUnprocessableEntityResponse({
    type: ValidationErrorBodyDto,
    description: 'The answer does not fit the prompt',
  })
  async respond(
    @CurrentIdentity() identity: Identity,
    @Param('id') executionId: string,
    @Param('interactionId') interactionId: string,
    @Body(new ValidateBodyPipe(InteractionResponseDto)) body: InteractionResponseDto,
  ): Promise<void> {
    await this.executions.respond(identity, executionId, interactionId, body.response);
  }
}
