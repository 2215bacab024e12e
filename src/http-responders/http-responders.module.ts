import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module';
import { ExecutionResponder } from './execution-responder';

/** What the HTTP faces share: answering a request with an execution (200, 202, SSE). */
@Module({
  imports: [ExecutionsModule],
  providers: [ExecutionResponder],
  exports: [ExecutionResponder],
})
export class HttpRespondersModule {}
