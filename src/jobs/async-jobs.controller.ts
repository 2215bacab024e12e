import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { AppError, type ValidationIssue } from '../core/errors/app-error';
import { JsonBody } from '../core/http/json-body';
import { requestMetadata } from '../core/http/request-metadata';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { validatePlain } from '../core/validation/validation-issues';
import { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import { DetailBodyDto, ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { AsyncJobsService, DEFAULT_EXPIRY_SECONDS } from './async-jobs.service';
import {
  ASYNC_FIELDS,
  AsyncJobFieldsDto,
  JobListDto,
  JobStatusDto,
  JobSubmittedDto,
} from './dto/async-job.dto';
import { isFinal, jobStatusBody } from './job-record';
import { parseListQuery, type JobListQuery } from './job-query';
import { webhookUrlProblem } from './job-webhook';

/**
 * NeMo Agent Toolkit's async generate routes, under the workflow path and its legacy alias (mounted by
 * JobsModule): submit, then poll `async/job/{job_id}`.
 */
@ApiTags('Async jobs')
@ApiNotFoundResponse({ type: DetailBodyDto, description: '`{"detail": "Job <id> not found"}`' })
@ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
@Controller()
export class AsyncJobsController {
  constructor(
    private readonly jobs: AsyncJobsService,
    private readonly config: ServerConfig,
  ) {}

  @Post('async')
  @HttpCode(202)
  @ApiOperation({
    summary: "Run the workflow in the background; the body is the workflow's input plus job options",
  })
  @ApiBody({ type: AsyncJobFieldsDto, description: 'The workflow input fields, plus these' })
  @ApiAcceptedResponse({
    type: JobSubmittedDto,
    description: 'Submitted (or still running after sync_timeout)',
  })
  @ApiOkResponse({ type: JobStatusDto, description: 'Ended within sync_timeout, or job_id already existed' })
  async submit(
    @JsonBody() body: unknown,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { fields, input } = this.parse(body);
    const { job, created } = await this.jobs.submit(
      identity,
      {
        kind: 'workflow',
        jobId: fields.job_id,
        input,
        webhookUrl: fields.webhook_url,
        expirySeconds: fields.expiry_seconds ?? DEFAULT_EXPIRY_SECONDS,
      },
      requestMetadata(req),
    );
    if (!created) {
      res.status(200);
      return { job_id: job.jobId, status: job.status };
    }
    if (fields.sync_timeout) {
      const left = new AbortController();
      res.once('close', () => left.abort());
      const now = await this.jobs.waitForEnd(job, fields.sync_timeout, left.signal);
      if (isFinal(now.status)) {
        res.status(200);
        return jobStatusBody(now);
      }
      return { job_id: now.jobId, status: now.status };
    }
    return { job_id: job.jobId, status: job.status };
  }

  @Get('async/job/:job_id')
  @ApiOperation({ summary: 'The status of one of your jobs (output once it succeeded, until it expires)' })
  @ApiOkResponse({ type: JobStatusDto })
  async status(@CurrentIdentity() identity: Identity, @Param('job_id') jobId: string) {
    return jobStatusBody(await this.jobs.get('workflow', identity, jobId));
  }

  /** Splits the body into the job's options and the workflow's input, each validated (422 otherwise). */
  private parse(body: unknown): { fields: AsyncJobFieldsDto; input: Record<string, unknown> } {
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

/** The same routes under the legacy workflow path (their own class: OpenAPI names operations by it). */
@ApiTags('Async jobs (legacy)')
@Controller()
export class LegacyAsyncJobsController extends AsyncJobsController {}

/** Ours, beside NeMo Agent Toolkit's routes: list and cancel (under the versioned workflow path). */
@ApiTags('Async jobs')
@ApiNotFoundResponse({ type: DetailBodyDto })
@Controller()
export class AsyncJobListController {
  constructor(private readonly jobs: AsyncJobsService) {}

  @Get('async/jobs')
  @ApiOperation({ summary: 'Your jobs, newest first' })
  @ApiQuery({ name: 'status', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1..100, default 20' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  @ApiOkResponse({ type: JobListDto })
  async list(@CurrentIdentity() identity: Identity, @Query() query: JobListQuery) {
    const page = await this.jobs.list('workflow', identity, parseListQuery(query));
    return { jobs: page.jobs.map(jobStatusBody), next_cursor: page.nextCursor };
  }

  @Delete('async/job/:job_id')
  @ApiOperation({ summary: 'Cancel a submitted or running job (it ends interrupted)' })
  @ApiOkResponse({ type: JobStatusDto })
  async cancel(@CurrentIdentity() identity: Identity, @Param('job_id') jobId: string) {
    return jobStatusBody(await this.jobs.cancel('workflow', identity, jobId));
  }
}
