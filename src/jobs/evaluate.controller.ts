import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { ValidateBodyPipe } from '../core/validation/body.pipes';
import { requestMetadata } from '../core/http/request-metadata';
import { CurrentIdentity } from '../core/identity/current-identity.decorator';
import type { Identity } from '../core/identity/identity';
import { DetailBodyDto, ValidationErrorBodyDto } from '../http-responders/dto/responses.dto';
import { ApiCommonErrors, ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';
import { AsyncJobsService, DEFAULT_EXPIRY_SECONDS } from './async-jobs.service';
import { JobSubmittedDto } from './dto/async-job.dto';
import { EvaluateRequestDto, EvaluationJobStatusDto } from './dto/evaluate.dto';
import { resolveEvaluationConfig } from './evaluation-config-path';
import { jobStatusBody } from './job-record';
import { parseListQuery } from './job-query';

/** NeMo Agent Toolkit's evaluation job routes (`nvidia-nat-eval`): submit, poll, list. */
@ApiTags('Evaluation')
@ApiNotFoundResponse({ type: DetailBodyDto })
@ApiUnprocessableEntityResponse({ type: ValidationErrorBodyDto })
@ApiCommonErrors()
@Controller()
export class EvaluateController {
  constructor(
    private readonly jobs: AsyncJobsService,
    private readonly config: ServerConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Run an evaluation config in the background' })
  @ApiAcceptedResponse({ type: JobSubmittedDto, description: 'Submitted' })
  @ApiOkResponse({ type: JobSubmittedDto, description: 'job_id already existed: its status' })
  @ApiErrorResponses({
    413: 'Body larger than `max_body_bytes`',
    429: 'You have general.async.max_active_jobs_per_user unfinished jobs, or the queue is full',
  })
  async submit(
    @Body(new ValidateBodyPipe(EvaluateRequestDto)) body: EvaluateRequestDto,
    @CurrentIdentity() identity: Identity,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const configFile = resolveEvaluationConfig(body.config_file, this.config.general.evaluation.config_dir);
    // The row, and so every answer, names the file relative to config_dir: no server path is shown.
    const { job, created } = await this.jobs.submit(
      identity,
      {
        kind: 'evaluation',
        jobId: body.job_id,
        configFile: configFile.relative,
        reps: body.reps ?? 1,
        expirySeconds: body.expiry_seconds ?? DEFAULT_EXPIRY_SECONDS,
      },
      requestMetadata(req),
    );
    if (!created) res.status(200);
    return { job_id: job.jobId, status: job.status };
  }

  @Get('job/last')
  @ApiOperation({ summary: 'Your most recent evaluation job' })
  @ApiOkResponse({ type: EvaluationJobStatusDto })
  async last(@CurrentIdentity() identity: Identity) {
    const [job] = (await this.jobs.list('evaluation', identity, { limit: 1 })).jobs;
    if (!job) throw new AppError(ErrorCode.NotFound, 'No jobs found');
    return jobStatusBody(job);
  }

  @Get('job/:job_id')
  @ApiOperation({ summary: 'The status of one of your evaluation jobs' })
  @ApiOkResponse({ type: EvaluationJobStatusDto })
  async status(@CurrentIdentity() identity: Identity, @Param('job_id') jobId: string) {
    return jobStatusBody(await this.jobs.get('evaluation', identity, jobId));
  }

  @Get('jobs')
  @ApiOperation({ summary: 'Your evaluation jobs, newest first' })
  @ApiQuery({ name: 'status', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1..100, default 100' })
  @ApiOkResponse({ type: [EvaluationJobStatusDto] })
  async list(
    @CurrentIdentity() identity: Identity,
    @Query('status') status?: string,
    @Query('limit') limit?: string,
  ) {
    const query = parseListQuery({ status, limit });
    const page = await this.jobs.list('evaluation', identity, { ...query, limit: query.limit ?? 100 });
    return page.jobs.map(jobStatusBody);
  }
}
