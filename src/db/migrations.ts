import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DatabaseDialect } from './database';
import * as feedback from './migrations/0001-feedback';
import * as traceOwner from './migrations/0002-trace-owner';
import * as jobs from './migrations/0003-jobs';
import * as executions from './migrations/0004-executions';
import * as journal from './migrations/0005-journal';
import * as oauthTokens from './migrations/0006-oauth-tokens';
import * as aguiThreads from './migrations/0007-agui-threads';
import * as traceOwnerCreated from './migrations/0008-trace-owner-created';
import * as feedbackByUser from './migrations/0009-feedback-by-user';
import * as aguiThreadOwnerKey from './migrations/0010-agui-thread-owner-key';
import * as responses from './migrations/0011-responses';
import * as pageConversations from './migrations/0012-page-conversations';
import * as leaseEpoch from './migrations/0013-lease-epoch';
import * as a2a from './migrations/0014-a2a';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void>;
  down?(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void>;
}

/** In order; a name, once released, never changes (it is recorded in kysely_migration). */
const MIGRATIONS: [string, DialectMigration][] = [
  ['0001-feedback', feedback],
  ['0002-trace-owner', traceOwner],
  ['0003-jobs', jobs],
  ['0004-executions', executions],
  ['0005-journal', journal],
  ['0006-oauth-tokens', oauthTokens],
  ['0007-agui-threads', aguiThreads],
  ['0008-trace-owner-created', traceOwnerCreated],
  ['0009-feedback-by-user', feedbackByUser],
  ['0010-agui-thread-owner-key', aguiThreadOwnerKey],
  ['0011-responses', responses],
  ['0012-page-conversations', pageConversations],
  ['0013-lease-epoch', leaseEpoch],
  ['0014-a2a', a2a],
];

/** The migrations compiled into the server, so no migrations folder has to ship beside it. */
export class InCodeMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: DatabaseDialect) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const [name, m] of MIGRATIONS) {
      migrations[name] = {
        up: (db) => m.up(db, this.dialect),
        down: m.down ? (db) => m.down!(db, this.dialect) : undefined,
      };
    }
    return migrations;
  }
}
