import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { Database } from './database';

/** The one Database, opened and migrated before the server listens, closed when it stops. */
@Module({
  providers: [
    {
      provide: Database,
      inject: [ServerConfig],
      useFactory: (config: ServerConfig) =>
        Database.open(config.general.db_url, {
          queryTimeoutMs: config.general.executions.postgres_query_timeout_seconds * 1000,
          preparedStatements: config.general.executions.postgres_prepared_statements,
        }),
    },
  ],
  exports: [Database],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
