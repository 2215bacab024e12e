import { ValidateBy, type ValidationArguments } from 'class-validator';

/** Where the data lives, from `general.db_url`. */
export type DatabaseTarget =
  { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; connectionString: string; schema?: string };

export const DB_URL_FORMS = 'sqlite:<file>, sqlite::memory: or postgres://user:password@host:port/database';

export const SQLITE_MEMORY = ':memory:';

const SCHEMA = /^[a-z_][a-z0-9_]*$/;

/**
 * `sqlite:<file>` (relative to the working directory), `sqlite::memory:`, or a libpq
 * `postgres://` / `postgresql://` URL. `?schema=<name>` on a PostgreSQL URL is ours: the server creates
 * that schema and keeps its tables there (so several servers or test runs can share one database).
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new Error(`db_url "${url}" names no file (use ${DB_URL_FORMS})`);
    return { dialect: 'sqlite', file };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`db_url is not a valid URL (use ${DB_URL_FORMS})`);
    }
    const schema = parsed.searchParams.get('schema') ?? undefined;
    if (schema !== undefined && !SCHEMA.test(schema)) {
      throw new Error(`db_url schema "${schema}" must be lower case letters, digits and _`);
    }
    parsed.searchParams.delete('schema');
    return { dialect: 'postgres', connectionString: parsed.toString(), schema };
  }
  throw new Error(`db_url must be one of ${DB_URL_FORMS}`);
}

/** The URL with its password hidden, for logs. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** Config check: a URL `parseDatabaseUrl` accepts (its error is the message). */
export function IsDatabaseUrl(): PropertyDecorator {
  return ValidateBy({
    name: 'isDatabaseUrl',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string') return false;
        try {
          parseDatabaseUrl(value);
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: (args?: ValidationArguments) => {
        try {
          parseDatabaseUrl(String(args?.value));
          return `db_url must be one of ${DB_URL_FORMS}`;
        } catch (err) {
          return (err as Error).message;
        }
      },
    },
  });
}
