import { Injectable, type PipeTransform } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import { ASYNC_FIELDS, AsyncJobFieldsDto } from './dto/async-job.dto';
import { webhookUrlProblem } from './job-webhook';

/** A submitted job: its options, and the workflow's input (the body without them). */
export interface AsyncJobBody {
  fields: AsyncJobFieldsDto;
  input: Record<string, unknown>;
}

/**
 * The body of `POST …/async`, split into the job's options and the workflow's input, each validated:
 * every problem of both in one FastAPI-style 422.
 */
@Injectable()
export class AsyncJobBodyPipe implements PipeTransform<unknown, AsyncJobBody> {
  constructor(private readonly config: ServerConfig) {}

  transform(body: unknown): AsyncJobBody {
    const checked = validatePlain(AsyncJobFieldsDto, body, ['body']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const input = { ...(body as Record<string, unknown>) };
    for (const key of ASYNC_FIELDS) delete input[key];
    const workflow = this.config.workflow;
    const dto = workflow.input.kind === 'chat' ? ChatRequestDto : workflow.input.dto;
    const issues: ValidationIssue[] = [];
    const valid = validatePlain(dto as new () => object, input, ['body']);
    if (!valid.ok) issues.push(...valid.issues);
    const url = checked.value.webhook_url;
    const problem = url === undefined ? null : webhookUrlProblem(url, this.config.general.async);
    if (problem) issues.push({ type: 'value_error', loc: ['body', 'webhook_url'], msg: problem, input: url });
    if (issues.length > 0) throw AppError.validation(issues);
    return { fields: checked.value, input };
  }
}
