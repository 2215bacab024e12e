import type { Job } from './job-record';

/** A job ended (success, failure or interrupted), announced by the process that recorded its end. */
export class JobFinished {
  static readonly event = 'job.finished';

  constructor(readonly job: Job) {}
}
