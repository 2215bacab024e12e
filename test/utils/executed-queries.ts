import type { CompiledQuery, Kysely } from 'kysely';
import type { Tables } from '../../src/db/tables';

/**
 * A copy of `db` that tells `seen` of each query it runs, as it is run: those a builder compiles at
 * each run and the prepared ones (src/db/prepared-query.ts) compiled once, which a plugin's
 * `transformQuery` hears of only at that first compile.
 */
export function executedQueries(db: Kysely<Tables>, seen: (query: CompiledQuery) => void): Kysely<Tables> {
  const copy = db.withoutPlugins();
  const executor = copy.getExecutor();
  const execute = executor.executeQuery.bind(executor);
  executor.executeQuery = ((query: CompiledQuery) => {
    seen(query);
    return execute(query);
  }) as typeof executor.executeQuery;
  return copy;
}
