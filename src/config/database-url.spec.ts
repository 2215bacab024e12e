import { parseDatabaseUrl, redactDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it.each([
    ['sqlite:./data/interlude.db', { dialect: 'sqlite', file: './data/interlude.db' }],
    ['sqlite:/var/lib/interlude/db.sqlite', { dialect: 'sqlite', file: '/var/lib/interlude/db.sqlite' }],
    ['sqlite:///var/lib/interlude/db.sqlite', { dialect: 'sqlite', file: '/var/lib/interlude/db.sqlite' }],
    ['sqlite::memory:', { dialect: 'sqlite', file: ':memory:' }],
    [
      'postgres://app:pw@db:5432/interlude',
      { dialect: 'postgres', connectionString: 'postgres://app:pw@db:5432/interlude', schema: undefined },
    ],
    [
      'postgresql://db/interlude?sslmode=require&schema=tenant_a',
      {
        dialect: 'postgres',
        connectionString: 'postgresql://db/interlude?sslmode=require',
        schema: 'tenant_a',
      },
    ],
  ])('%s', (url, target) => {
    expect(parseDatabaseUrl(url)).toEqual(target);
  });

  it.each([
    ['mysql://db/x', /must be one of/],
    ['sqlite:', /names no file/],
    ['postgres://db/x?schema=Bad-Name', /schema "Bad-Name" must be lower case/],
  ])('refuses %s', (url, message) => {
    expect(() => parseDatabaseUrl(url)).toThrow(message);
  });
});

describe('redactDatabaseUrl', () => {
  it('hides a PostgreSQL password and leaves the rest', () => {
    expect(redactDatabaseUrl('postgres://app:s3cret@db:5432/x')).toBe('postgres://app:***@db:5432/x');
    expect(redactDatabaseUrl('postgres://app@db/x')).toBe('postgres://app@db/x');
    expect(redactDatabaseUrl('sqlite:./a.db')).toBe('sqlite:./a.db');
  });
});
