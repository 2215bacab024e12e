// Where `interlude serve` listens, and why it could not: a sentence a person acts on instead of a stack.
import { createServer } from 'node:net';

export interface ListenAddress {
  host: string;
  port: number;
}

/** A port number as `--port` and INTERLUDE_PORT take it; undefined when it is not one. */
export function parsePort(value: string): number | undefined {
  const n = Number(value);
  return value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 65535 ? n : undefined;
}

/**
 * `--host`/`--port`, else INTERLUDE_HOST/INTERLUDE_PORT (empty counts as unset, as `${VAR:-default}`
 * reads it), else the config's `general.front_end`. Throws on an INTERLUDE_PORT that is not a port.
 */
export function listenAddress(
  flags: { host?: string; port?: number },
  config: ListenAddress,
  env: NodeJS.ProcessEnv,
): ListenAddress {
  const envHost = env.INTERLUDE_HOST || undefined;
  let envPort: number | undefined;
  if (env.INTERLUDE_PORT) {
    envPort = parsePort(env.INTERLUDE_PORT);
    if (envPort === undefined) {
      throw new Error(`INTERLUDE_PORT must be a port number (0-65535) (got "${env.INTERLUDE_PORT}")`);
    }
  }
  return {
    host: flags.host ?? envHost ?? config.host,
    port: flags.port ?? envPort ?? config.port,
  };
}

/**
 * Binds the address for a moment and lets it go: a port in use or a host that is not this machine's is
 * then reported before the server opens its database and says it started. (The real listen can still
 * lose a race for the port; its error is reported the same way.)
 */
export function checkListen({ host, port }: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host }, () => server.close(() => resolve()));
  });
}

const HOST_HINT =
  'pass --host (127.0.0.1: this machine only, 0.0.0.0: every interface) or set INTERLUDE_HOST';

/** Why listening on `address` failed, in a sentence that says what to do. */
export function listenFailure(err: unknown, { host, port }: ListenAddress): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is in use; pass --port or set INTERLUDE_PORT`;
    case 'EACCES':
      return port < 1024
        ? `port ${port} needs privileges (ports below 1024 do); pass --port with 1024 or above, or set INTERLUDE_PORT`
        : `not allowed to listen on port ${port}; pass --port or set INTERLUDE_PORT`;
    case 'EADDRNOTAVAIL':
      return `host ${host} is not an address of this machine; ${HOST_HINT}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `host "${host}" does not resolve to an address; ${HOST_HINT}`;
    default:
      return `cannot listen on ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`;
  }
}
