import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import {
  COMMENT_MAX_LENGTH,
  FeedbackQueryDto,
  FeedbackRequestDto,
  REACTION_MAX_LENGTH,
  TRACE_ID_MAX_LENGTH,
} from './dto/feedback-request.dto';

const given = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** How long each text field may be; a 9 MB reaction was once stored whole. */
const LIMITS: Record<string, number> = {
  observability_trace_id: TRACE_ID_MAX_LENGTH,
  reaction_type: REACTION_MAX_LENGTH,
  comment: COMMENT_MAX_LENGTH,
  user_id: TRACE_ID_MAX_LENGTH,
};

/**
 * Fields past their limit, as pydantic reports them. pydantic counts code points, so an emoji is one
 * character, as a reader would count it. The echoed input is cut at the limit: the answer to an
 * oversized field must not be oversized itself.
 */
function tooLong(where: string, fields: object): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const max = LIMITS[field];
    if (max === undefined || typeof value !== 'string') continue;
    const chars = [...value];
    if (chars.length <= max) continue;
    issues.push({
      type: 'string_too_long',
      loc: [where, field],
      msg: `String should have at most ${max} characters`,
      input: `${chars.slice(0, max).join('')}…`,
      ctx: { max_length: max },
    });
  }
  return issues;
}

/** The body of `POST /feedback`, checked FastAPI style: 422 with `detail` issues located in `body`. */
@Injectable()
export class FeedbackBodyPipe implements PipeTransform<unknown, FeedbackRequestDto> {
  transform(body: unknown): FeedbackRequestDto {
    const checked = validatePlain(FeedbackRequestDto, body, ['body']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const oversized = tooLong('body', checked.value);
    if (oversized.length) throw AppError.validation(oversized);
    const { comment, reaction_type } = checked.value;
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
    const oversized = tooLong('query', checked.value);
    if (oversized.length) throw AppError.validation(oversized);
    return checked.value;
  }
}
