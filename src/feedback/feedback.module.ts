import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { ExecutionsModule } from '../executions/executions.module';
import { FeedbackController } from './feedback.controller';
import { FeedbackWebhook } from './feedback-webhook';
import { FeedbackService } from './feedback.service';

@Module({
  imports: [DatabaseModule, ExecutionsModule],
  controllers: [FeedbackController],
  providers: [FeedbackService, FeedbackWebhook],
})
export class FeedbackModule {}
