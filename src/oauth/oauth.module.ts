import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { RedisModule } from '../redis/redis.module';
import { oauthAdapters } from './oauth-adapters';
import { OAuthService } from './oauth.service';

/** OAuth2 authorization-code flows for workflows acting as their user, and their tokens. */
@Module({
  imports: [DatabaseModule, RedisModule],
  providers: [...oauthAdapters, OAuthService],
  exports: [OAuthService],
})
export class OAuthModule {}
