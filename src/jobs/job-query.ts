import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { JOB_STATUSES, type JobStatus } from './job-record';
import { MAX_LIST_LIMIT } from './async-jobs.service';

export interface JobListQuery {
  status?: string;
  limit?: string;
  cursor?: string;
}

/** `?status=&limit=&cursor=` of the job lists; anything else is a 422 naming the parameter. */
export function parseListQuery(query: JobListQuery): { status?: JobStatus; limit?: number; cursor?: string } {
  const issues: ValidationIssue[] = [];
  const { status, limit, cursor } = query;
  if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status)) {
    issues.push({
      type: 'enum',
      loc: ['query', 'status'],
      msg: `Input should be ${JOB_STATUSES.map((s) => `'${s}'`).join(', ')}`,
      input: status,
    });
  }
  let count: number | undefined;
  if (limit !== undefined) {
    count = /^\d{1,4}$/.test(limit) ? Number(limit) : NaN;
    if (!(count >= 1 && count <= MAX_LIST_LIMIT)) {
      issues.push({
        type: 'value_error',
        loc: ['query', 'limit'],
        msg: `Input should be an integer from 1 to ${MAX_LIST_LIMIT}`,
        input: limit,
      });
    }
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > 512)) {
    issues.push({ type: 'value_error', loc: ['query', 'cursor'], msg: 'Invalid cursor', input: null });
  }
  if (issues.length > 0) throw AppError.validation(issues);
  return { status: status as JobStatus | undefined, limit: count, cursor };
}
