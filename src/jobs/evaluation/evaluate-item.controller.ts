import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { JsonBody, ValidateBodyPipe } from '../../core/http/json-body';
import { DetailBodyDto, ValidationErrorBodyDto } from '../../http-executions/dto/responses.dto';
import { EvaluateItemRequestDto, EvaluateItemResponseDto } from './dto/evaluate-item.dto';
import { ServedEvaluators, type EvaluateItemResult } from './served-evaluators';

/** NeMo Agent Toolkit's `POST /evaluate/item`: one item through one configured evaluator. Mounted by EvaluateItemModule. */
@ApiTags('Evaluation')
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
  async evaluate(
    @JsonBody(new ValidateBodyPipe(EvaluateItemRequestDto)) body: EvaluateItemRequestDto,
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
      );
    } finally {
      res.off('close', onClose);
    }
  }
}
