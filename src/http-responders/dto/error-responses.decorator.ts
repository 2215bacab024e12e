import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { DetailBodyDto } from './responses.dto';

/** Statuses a route answers with an error body, and what each means there. */
export type ErrorStatuses = Partial<
  Record<400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503, string>
>;

/**
 * Declares error answers in one body shape (`{"detail": …}` unless told): always as JSON, whatever the
 * route produces on success, so an SSE route's errors are not documented as event streams.
 */
export const ApiErrorResponses = (errors: ErrorStatuses, body: Type = DetailBodyDto) =>
  applyDecorators(
    ApiExtraModels(body),
    ...Object.entries(errors).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        description,
        content: { 'application/json': { schema: { $ref: getSchemaPath(body) } } },
      }),
    ),
  );

/** The answers any route behind the identity guard and the stores may give, besides its own. */
export const COMMON_ERRORS = {
  401:
    'A credential was sent and refused, or general.auth.require_identity is on and none was sent ' +
    '(WWW-Authenticate says what is accepted)',
  503: 'A store this server depends on is unavailable; retry after Retry-After seconds',
} satisfies ErrorStatuses;

/** {@link COMMON_ERRORS}, in the face's own error shape; on a controller, for all of its routes. */
export const ApiCommonErrors = (body: Type = DetailBodyDto) => ApiErrorResponses(COMMON_ERRORS, body);
