import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server whose answers wait until the test releases them, by the `i` query parameter: a job
 * whose workflow fetches `<url>?i=<input>` is running for as long as its request is held.
 */
export async function heldResponses() {
  const held = new Map<string, ServerResponse>();
  const server = createServer((req, res) => {
    held.set(new URL(req.url ?? '/', 'http://x').searchParams.get('i') ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Whether a job with this input is running (its request arrived). */
    has: (input: string) => held.has(input),
    release: (input: string) => {
      held.get(input)?.end('ok');
      held.delete(input);
    },
    close: async () => {
      for (const res of held.values()) res.end('ok');
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
