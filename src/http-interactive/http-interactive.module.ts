import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module';
import { ExecutionsController } from './executions.controller';
import { InteractionsController } from './interactions.controller';

/** The HTTP interactive face: status polls, cancel, re-attached streams and answers under `/executions`. */
@Module({
  imports: [ExecutionsModule],
  controllers: [ExecutionsController, InteractionsController],
})
export class HttpInteractiveModule {}
