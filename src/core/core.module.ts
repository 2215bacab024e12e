import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConnectionCount } from './connection-count';
import { IdentityGuard } from './identity/identity.guard';
import { IdentityResolver } from './identity/identity.resolver';

/** Who is asking (for every HTTP route and the socket handshake) and the open-connection count. */
@Global()
@Module({
  providers: [IdentityResolver, ConnectionCount, { provide: APP_GUARD, useClass: IdentityGuard }],
  exports: [IdentityResolver, ConnectionCount],
})
export class CoreModule {}
