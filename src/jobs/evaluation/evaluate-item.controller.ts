import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { addressOf } from '../../core/http/connection-caps';
import { ValidateBodyPipe } from '../../core/validation/body.pipes';
import { callerKey } from '../../core/identity/caller-key';
import { CurrentIdentity } from '../../core/identity/current-identity.decorator';
import type { Identity } from '../../core/identity/identity';
import { DetailBodyDto, ValidationErrorBodyDto } from '../../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../../http-responders/dto/error-responses.decorator';
import { EvaluateItemRequestDto, EvaluateItemResponseDto } from './dto/evaluate-item.dto';
import { ServedEvaluators, type EvaluateItemResult } from './served-evaluators';

/** NeMo Agent Toolkit's `POST /evaluate/item`: one item through one configured evaluator. Mounted by EvaluateItemModule. */
@ApiTags('Evaluation')
@ApiCommonErrors()
@Controller()
export class EvaluateItemController {
  constructor(private readonly evaluators: ServedEvaluators) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: "Score one item with an evaluator of the served config's eval.evaluators" })
  @ApiBody({ type: EvaluateItemRequestDto })
  @ApiOkResponse({
    type: EvaluateItemResponseDto,
    description: 'The evaluation output item; `success: false` with the error when the evaluator failed',
  })
  @ApiNotFoundResponse({
    type: DetailBodyDto,
    description: 'No evaluator of that name (the available ones are named)',
  })
  @ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto, description: 'Invalid body' })
  @ApiErrorResponses({ 413: 'Body larger than `max_body_bytes`' })
  @ApiTooManyRequestsResponse({
    type: DetailBodyDto,
    description:
      "The evaluator's workers are busy for you (general.sandbox); Retry-After says when to try again",
  })
  async evaluate(
    @Body(new ValidateBodyPipe(EvaluateItemRequestDto)) body: EvaluateItemRequestDto,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EvaluateItemResult> {
    // A caller that goes away stops a judge's model call.
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new Error('the client went away'));
    };
    res.once('close', onClose);
    const { item } = body;
    try {
      return await this.evaluators.evaluate(
        body.evaluator_name,
        {
          id: item.id,
          input_obj: item.input_obj,
          expected_output_obj: item.expected_output_obj,
          output_obj: item.output_obj ?? null,
          trajectory: item.trajectory ?? [],
          expected_trajectory: item.expected_trajectory,
          full_dataset_entry: item.full_dataset_entry,
        },
        abort.signal,
        callerKey(identity, addressOf(req)),
      );
    } finally {
      res.off('close', onClose);
    }
  }
}
