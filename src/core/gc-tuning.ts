import { setFlagsFromString } from 'node:v8';

/** V8's own factor by which the young generation grows (1 MiB per semi-space at start, up to 16 MiB). */
const V8_SEMI_SPACE_GROWTH = 2;

/**
 * Serving, the young generation grows in one step from its 1 MiB to V8's 16 MiB maximum (V8 caps it),
 * at the first MiB that survives its collections. Grown by V8's factor of 2, under the echo load (20
 * connections) it was still at 8 MiB after 20,000 requests, and the next 40,000 took 261 scavenges and 2
 * to 4 full collections, against 191 and none for a server whose start-up had grown it; grown in one
 * step, 192 scavenges (the 2 full collections of a heap that starting left in the old generation).
 */
const SERVING_SEMI_SPACE_GROWTH = 16;

/** True when the command line or NODE_OPTIONS sets young-generation sizes: then we leave them alone. */
function youngGenerationSetByUser(): boolean {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return /semi[-_]space/.test(flags);
}

/**
 * Called first thing at start-up (src/core/gc-start-up.ts, the CLI's first import): until the server
 * serves, V8 does not grow the young generation. Starting keeps surviving young-generation collections
 * with objects that live as long as the process (modules, Nest's container, metadata), which is what
 * makes V8 grow the young generation; it reached its 16 MiB semi-space maximum during start-up, and an
 * idle server kept ~22 MiB of it resident (on config/default.yml: 22 MiB of a 130 MiB idle RSS). With
 * growth held, the young generation stays at 1 MiB per semi-space and what start-up keeps is promoted
 * to the old generation, where it lives anyway. It costs start-up ~30 ms of collections (60 scavenges
 * and a full collection, 87-107 ms, against 11 scavenges, 57-76 ms; `node --trace-gc`, two starts each).
 */
export function startingFromNow(): void {
  if (youngGenerationSetByUser()) return;
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** The young generation grows again as V8 decides (a one-shot command that does more than start). */
export function workingFromNow(): void {
  if (youngGenerationSetByUser()) return;
  setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH}`);
}

/**
 * Called once a server is up (listening, or a worker taking jobs). The young generation grows again,
 * to its maximum in one step (see SERVING_SEMI_SPACE_GROWTH).
 *
 * And from then on V8 no longer pretenures, i.e. no longer decides to allocate a code site's objects
 * straight into the old generation. Start-up keeps it: what starting allocates lives as long as the
 * process, which is what pretenuring is for.
 *
 * Serving, a site qualifies when most of its objects outlived a young-generation collection, and a
 * server's objects live as long as a request: that happens only while requests are slow for a moment
 * (in the shared-store server, the first second of a load tenured about 90 sites). From then on those
 * sites' objects are born old and hold the young objects of the same request, every scavenge promotes
 * those as well (an old object is a root for it, dead or not), and their sites are tenured in turn:
 * the process stays in that state for good. Measured on `POST /v1/workflow` (echo, shared store, 20
 * connections): 440 KB promoted and 2.4 ms per scavenge, against 5 KB and 0.7 ms with pretenuring off
 * (the memory store, which did not get into that state: 3 KB and 0.7 ms); 25 % more requests per second.
 *
 * `node --allocation-site-pretenuring dist/cli.js` keeps V8's default pretenuring throughout; any
 * `--*-semi-space-*` flag (command line or NODE_OPTIONS) leaves the young generation to V8 throughout.
 */
export function servingFromNow(): void {
  if (!youngGenerationSetByUser()) {
    setFlagsFromString(`--semi-space-growth-factor=${SERVING_SEMI_SPACE_GROWTH}`);
  }
  if (process.execArgv.includes('--allocation-site-pretenuring')) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
