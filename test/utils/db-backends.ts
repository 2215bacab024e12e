import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** A database a test runs the server against, and how to throw it away. */
export interface Backend {
  dbUrl: string;
  cleanup(): Promise<void>;
}

/** A SQLite file in a folder of its own (the folder is created by the server). */
export function sqliteFile(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'interlude-feedback-'));
  return {
    dbUrl: `sqlite:${join(dir, 'nested', 'interlude.db')}`,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A schema of its own in DATABASE_URL's database, so parallel runs never see each other's rows. */
export function postgresSchema(databaseUrl: string): Backend {
  const schema = `feedback_e2e_${randomBytes(6).toString('hex')}`;
  const url = new URL(databaseUrl);
  url.searchParams.set('schema', schema);
  return {
    dbUrl: url.toString(),
    cleanup: async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
