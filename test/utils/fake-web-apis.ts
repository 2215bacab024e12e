import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a fake web API received: method, path, query and JSON body (if any), and the headers. */
export interface WebRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/**
 * A local HTTP server answering like a real web API, from a handler the test writes: a stand-in for
 * Wikipedia's or Tavily's endpoint, whose requests the test then reads.
 */
export class FakeWebApi {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly requests: WebRequest[],
  ) {}

  static async start(
    handle: (request: WebRequest) => { status?: number; body: unknown },
  ): Promise<FakeWebApi> {
    const requests: WebRequest[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const text = Buffer.concat(chunks).toString('utf8');
        const request: WebRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: text ? (JSON.parse(text) as unknown) : undefined,
        };
        requests.push(request);
        const { status = 200, body } = handle(request);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeWebApi(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Pages of a fake Wikipedia, answered in the MediaWiki Action API's shapes (formatversion=2). */
export function wikipediaAnswers(pages: { title: string; extract: string }[]) {
  return (request: WebRequest): { status?: number; body: unknown } => {
    const q = request.query;
    if (q.action !== 'query' || q.format !== 'json') return { status: 400, body: { error: 'bad request' } };
    if (q.list === 'search') {
      const hits = pages.filter((p) =>
        `${p.title} ${p.extract}`.toLowerCase().includes(q.srsearch.toLowerCase().split(' ')[0]),
      );
      return {
        body: {
          batchcomplete: true,
          query: {
            searchinfo: { totalhits: hits.length },
            search: hits
              .slice(0, Number(q.srlimit))
              .map((p, i) => ({ ns: 0, title: p.title, pageid: 100 + i })),
          },
        },
      };
    }
    const page = pages.find((p) => p.title === q.titles);
    return {
      body: {
        batchcomplete: true,
        query: {
          pages: [
            page
              ? {
                  pageid: 1,
                  ns: 0,
                  title: page.title,
                  extract: page.extract,
                  fullurl: `https://en.wikipedia.org/wiki/${page.title.replace(/ /g, '_')}`,
                }
              : { ns: 0, title: q.titles, missing: true },
          ],
        },
      },
    };
  };
}
