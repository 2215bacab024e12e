import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
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
import { requestMetadata } from '../core/http/request-metadata';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { DetailBodyDto, ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { AsyncJobsService, DEFAULT_EXPIRY_SECONDS } from './async-jobs.service';
import { AsyncJobBodyPipe, type AsyncJobBody } from './async-job-body.pipe';
import { AsyncJobFieldsDto, JobListDto, JobStatusDto, JobSubmittedDto } from './dto/async-job.dto';
import { isFinal, jobStatusBody } from './job-record';
import { parseListQuery, type JobListQuery } from './job-query';

/**
 * NeMo Agent Toolkit's async generate routes, under the workflow path and its legacy alias (mounted by
 * JobsModule): submit, then poll `async/job/{job_id}`.
 */
@ApiTags('Async jobs')
@ApiNotFoundResponse({ type: DetailBodyDto, description: '`{"detail": "Job <id> not found"}`' })
@ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
@ApiCommonErrors()
@Controller()
export class AsyncJobsController {
  constructor(private readonly jobs: AsyncJobsService) {}

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
  @ApiErrorResponses({
    413: 'Body larger than `max_body_bytes`',
    429: 'You have general.async.max_active_jobs_per_user unfinished jobs, or the queue is full',
  })
  async submit(
    @Body(AsyncJobBodyPipe) { fields, input }: AsyncJobBody,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
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
}

/** The same routes under the legacy workflow path (their own class: OpenAPI names operations by it). */
@ApiTags('Async jobs (legacy)')
@Controller()
export class LegacyAsyncJobsController extends AsyncJobsController {}

/** Ours, beside NeMo Agent Toolkit's routes: list and cancel (under the versioned workflow path). */
@ApiTags('Async jobs')
@ApiNotFoundResponse({ type: DetailBodyDto })
@ApiCommonErrors()
@Controller()
export class AsyncJobListController {
  constructor(private readonly jobs: AsyncJobsService) {}

  @Get('async/jobs')
  @ApiOperation({ summary: 'Your jobs, newest first' })
  @ApiQuery({ name: 'status', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1..100, default 20' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  @ApiOkResponse({ type: JobListDto })
  @ApiUnprocessableEntityResponse({
    type: ValidationErrorBodyDto,
    description: 'A status, limit or cursor it cannot use',
  })
  async list(@CurrentIdentity() identity: Identity, @Query() query: JobListQuery) {
    const page = await this.jobs.list('workflow', identity, parseListQuery(query));
    return { jobs: page.jobs.map(jobStatusBody), next_cursor: page.nextCursor };
  }

  @Delete('async/job/:job_id')
  @ApiOperation({ summary: 'Cancel a submitted or running job (it ends interrupted)' })
  @ApiOkResponse({ type: JobStatusDto })
  @ApiErrorResponses({ 409: 'The job has already ended' })
  async cancel(@CurrentIdentity() identity: Identity, @Param('job_id') jobId: string) {
    return jobStatusBody(await this.jobs.cancel('workflow', identity, jobId));
  }
}
