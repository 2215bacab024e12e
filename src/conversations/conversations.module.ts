import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';

/** The built-in page's conversations, kept per identity in the Database; served with the page. */
@Module({
  imports: [DatabaseModule],
  controllers: [ConversationsController],
  providers: [ConversationsService],
})
export class ConversationsModule {}
