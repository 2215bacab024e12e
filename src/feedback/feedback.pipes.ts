import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import { COMMENT_MAX_LENGTH, FeedbackQueryDto, FeedbackRequestDto } from './dto/feedback-request.dto';

const given = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** The body of `POST /feedback`, checked FastAPI style: 422 with `detail` issues located in `body`. */
@Injectable()
export class FeedbackBodyPipe implements PipeTransform<unknown, FeedbackRequestDto> {
  transform(body: unknown): FeedbackRequestDto {
    const checked = validatePlain(FeedbackRequestDto, body, ['body']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const { comment, reaction_type } = checked.value;
    // pydantic counts code points, so an emoji is one character, as a reader would count it.
    if (typeof comment === 'string' && [...comment].length > COMMENT_MAX_LENGTH) {
      throw AppError.validation([
        {
          type: 'string_too_long',
          loc: ['body', 'comment'],
          msg: `String should have at most ${COMMENT_MAX_LENGTH} characters`,
          input: comment,
          ctx: { max_length: COMMENT_MAX_LENGTH },
        },
      ]);
    }
    if (!given(reaction_type) && !given(comment)) {
      const error = 'Provide a reaction_type, a comment, or both';
      throw AppError.validation([
        { type: 'value_error', loc: ['body'], msg: `Value error, ${error}`, input: body, ctx: { error } },
      ]);
    }
    return checked.value;
  }
}

/** The query of `GET /feedback`, checked FastAPI style: 422 with `detail` issues located in `query`. */
@Injectable()
export class FeedbackQueryPipe implements PipeTransform<unknown, FeedbackQueryDto> {
  transform(query: unknown): FeedbackQueryDto {
    const checked = validatePlain(FeedbackQueryDto, { ...(query as object) }, ['query']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    return checked.value;
  }
}
