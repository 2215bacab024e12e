import {
  PostgresDialect,
  sql,
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  schema: string;
  table: string;
  kind: string;
  column: string;
  type: string;
  nullable: string;
  default_value: string | null;
}

/**
 * Kysely's PostgreSQL introspector reads every schema in the database and calls
 * `has_schema_privilege` on each: when another server (or test run) drops its schema at that moment,
 * our migration fails with "schema … does not exist". Interlude only ever needs its own schema
 * (the connection's `search_path`), so this introspector reads that one and nothing else.
 */
export class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`
      select nspname as name from pg_catalog.pg_namespace where nspname = current_schema()`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.table_schema as schema, c.table_name as "table", t.table_type as kind, c.column_name as "column",
             c.data_type as type, c.is_nullable as nullable, c.column_default as default_value
        from information_schema.columns c
        join information_schema.tables t
          on t.table_schema = c.table_schema and t.table_name = c.table_name
       where c.table_schema = current_schema()
       order by c.table_name, c.ordinal_position`.execute(this.db);
    const tables = new Map<
      string,
      { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }
    >();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'VIEW', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        isNullable: row.nullable === 'YES',
        hasDefaultValue: row.default_value !== null,
        isAutoIncrementing: row.default_value?.startsWith('nextval(') ?? false,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** PostgreSQL through Kysely, introspecting only the connection's own schema. */
export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
