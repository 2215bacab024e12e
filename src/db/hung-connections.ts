import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { asNamedStatement } from './prepared-query';

/** What node-postgres says when a query outlived its `query_timeout`. */
const QUERY_TIMED_OUT = 'Query read timeout';

/**
 * Kysely's pool over node-postgres's, closing a connection as soon as one of its queries timed out:
 * a connection that hung once is not worth another query (each would wait out the timeout again, a
 * transaction's ROLLBACK first), and what it still holds unsent must not reach the server once the
 * network is back (TCP would deliver it late: a write its client was told failed). The pool opens a
 * new connection for the next query; the queries still queued on the closed one fail at once.
 * `onHung` hears it (PostgreSQL counts as down until a new connection opens). With `prepared`, the
 * queries compiled once (prepared-query.ts) run as named prepared statements.
 */
export function closingHungConnections(
  pool: Pool,
  onHung: (err: Error) => void,
  prepared = false,
): PostgresPool {
  // One guard per connection, for as long as it lives: Kysely keeps its own object for each client
  // `connect` returns (in a WeakMap keyed by it), so a new guard at each checkout would cost a new
  // Kysely connection and map entry per query, kept until a full collection.
  const guards = new WeakMap<PoolClient, PostgresPoolClient>();
  return {
    connect: async () => {
      const client = await pool.connect();
      let guarded = guards.get(client);
      if (!guarded) guards.set(client, (guarded = guard(client, onHung, prepared)));
      return guarded;
    },
    end: () => pool.end(),
  };
}

function guard(client: PoolClient, onHung: (err: Error) => void, prepared: boolean): PostgresPoolClient {
  let hung: Error | undefined;
  const query = (...args: unknown[]): unknown => {
    const result = (client.query as (...a: unknown[]) => unknown)(
      ...(prepared ? asNamedStatement(args) : args),
    );
    if (!(result instanceof Promise)) return result; // a cursor (a streamed query)
    return result.catch((err: unknown) => {
      if (!hung && err instanceof Error && err.message === QUERY_TIMED_OUT) {
        hung = err;
        // With its query still out, `end` destroys the socket rather than wait for an answer.
        client.end().catch(() => undefined);
        onHung(err);
      }
      throw err;
    });
  };
  return {
    query: query as PostgresPoolClient['query'],
    // Released with its error, the pool drops it rather than hand it to the next query.
    release: () => client.release(hung),
  };
}
