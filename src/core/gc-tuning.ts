import { setFlagsFromString } from 'node:v8';

/**
 * Called once a server is up (listening, or a worker taking jobs): from then on V8 no longer
 * pretenures, i.e. no longer decides to allocate a code site's objects straight into the old
 * generation. Start-up keeps it: what starting allocates lives as long as the process, which is what
 * pretenuring is for.
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
 * `node --allocation-site-pretenuring dist/cli.js` keeps V8's default throughout.
 */
export function servingFromNow(): void {
  if (process.execArgv.includes('--allocation-site-pretenuring')) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}
