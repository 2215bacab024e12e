import { Module } from '@nestjs/common';
import { interactionAdapters } from './interaction-adapters';
import { InteractionService } from './interaction.service';

/** Asking a person and waking the workflow when the answer comes. */
@Module({
  providers: [...interactionAdapters, InteractionService],
  exports: [InteractionService],
})
export class InteractionsModule {}
