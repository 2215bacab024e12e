import { Module } from '@nestjs/common';
import { RedisModule } from '../redis/redis.module';
import { interactionAdapters } from './interaction-adapters';
import { InteractionService } from './interaction.service';

/** Asking a person and waking the workflow when the answer comes. */
@Module({
  imports: [RedisModule],
  providers: [...interactionAdapters, InteractionService],
  exports: [InteractionService],
})
export class InteractionsModule {}
