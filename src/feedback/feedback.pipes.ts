import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import {
  COMMENT_MAX_LENGTH,
  DEFAULT_PAGE_LIMIT,
  FeedbackQueryDto,
  MAX_PAGE_LIMIT,
  FeedbackRequestDto,
  REACTION_MAX_LENGTH,
  TRACE_ID_MAX_LENGTH,
} from './dto/feedback-request.dto';
import { CURSOR_MAX_LENGTH, cursorId, type FeedbackPageQuery, type FeedbackQuery } from './feedback.service';

const given = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** How long each text field may be; a 9 MB reaction was once stored whole. */
const LIMITS: Record<string, number> = {
  observability_trace_id: TRACE_ID_MAX_LENGTH,
  reaction_type: REACTION_MAX_LENGTH,
  comment: COMMENT_MAX_LENGTH,
  user_id: TRACE_ID_MAX_LENGTH,
  cursor: CURSOR_MAX_LENGTH,
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

/** What `GET /feedback` lists: one trace's feedback, or a page of the caller's own. */
export type FeedbackListing =
  { trace: FeedbackQuery; page?: undefined } | { page: FeedbackPageQuery; trace?: undefined };

const queryIssue = (field: string, type: string, msg: string, input: unknown): ValidationIssue => ({
  type,
  loc: ['query', field],
  msg,
  input,
});

function pageLimit(raw: string | undefined): number | ValidationIssue {
  if (raw === undefined) return DEFAULT_PAGE_LIMIT;
  if (!/^\d{1,6}$/.test(raw)) {
    return queryIssue(
      'limit',
      'int_parsing',
      'Input should be a valid integer, unable to parse string as an integer',
      raw,
    );
  }
  const limit = Number(raw);
  if (limit < 1)
    return queryIssue('limit', 'greater_than_equal', 'Input should be greater than or equal to 1', raw);
  if (limit > MAX_PAGE_LIMIT) {
    return queryIssue(
      'limit',
      'less_than_equal',
      `Input should be less than or equal to ${MAX_PAGE_LIMIT}`,
      raw,
    );
  }
  return limit;
}

/** The query of `GET /feedback`, checked FastAPI style: 422 with `detail` issues located in `query`. */
@Injectable()
export class FeedbackQueryPipe implements PipeTransform<unknown, FeedbackListing> {
  transform(query: unknown): FeedbackListing {
    const checked = validatePlain(FeedbackQueryDto, { ...(query as object) }, ['query']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const oversized = tooLong('query', checked.value);
    if (oversized.length) throw AppError.validation(oversized);
    const { observability_trace_id, user_id, limit, cursor } = checked.value;
    if (observability_trace_id !== undefined) {
      const paging = (['limit', 'cursor'] as const).filter((field) => checked.value[field] !== undefined);
      if (paging.length) {
        throw AppError.validation(
          paging.map((field) =>
            queryIssue(
              field,
              'value_error',
              'Value error, one trace’s feedback comes whole: limit and cursor page the listing without observability_trace_id',
              checked.value[field],
            ),
          ),
        );
      }
      return { trace: { observability_trace_id, ...(user_id !== undefined ? { user_id } : {}) } };
    }
    const issues: ValidationIssue[] = [];
    const pageSize = pageLimit(limit);
    if (typeof pageSize !== 'number') issues.push(pageSize);
    const after = cursor === undefined ? undefined : cursorId(cursor);
    if (cursor !== undefined && after === undefined) {
      issues.push(
        queryIssue('cursor', 'value_error', 'Value error, not a cursor this server handed out', cursor),
      );
    }
    if (issues.length) throw AppError.validation(issues);
    return {
      page: {
        limit: pageSize as number,
        ...(user_id !== undefined ? { user_id } : {}),
        ...(after !== undefined ? { after } : {}),
      },
    };
  }
}
