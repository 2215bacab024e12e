import { FakeLlm, reply, type ModelRequest, type Reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { FakeWebApi, wikipediaAnswers } from '../utils/fake-web-apis';
import { holdMachineLock } from '../utils/machine-lock';
import { metricValue } from '../utils/metrics';
import { ReplicaProcesses, type Response } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { START_MS } from '../utils/timing';

/**
 * A network partition (issue 31, point 4): replica 0's connections to PostgreSQL and Redis hang
 * (packets dropped, not refused; a TCP proxy of its own holds every chunk), while replica 1 keeps its
 * own. Agents that searched Wikipedia and then asked a person wait on replica 0. It must stop acting on
 * them before its lease runs out; replica 1 claims them and completes each, every model call and
 * search made once (the journal); once healed, replica 0 rejoins without a restart and runs nothing
 * twice. What its clients ask meanwhile is answered within the query and command timeouts (a poll, or
 * 503 with Retry-After), long before the partition heals; an answer refused so is never applied later.
 * Needs `npm run build`.
 */
// As faults-postgres: long enough that a loaded machine's slow renewal does not fence replica 1 too.
const LEASE_SECONDS = 5;
const PARTITION_MS = 15_000;
const EACH = 4;
/** The query and command timeouts of the replicas (`postgres_query_timeout_seconds`, `redis_command_timeout_seconds`). */
const TIMEOUT_SECONDS = 2;
/**
 * How long a request to the partitioned replica may take: its first query waits out the query timeout
 * on a pooled connection, or the 5 s a new connection (or a free one) is waited for; then one more
 * round for a ROLLBACK or a second store, and a margin for a loaded machine. Well under the partition.
 */
const BOUND_MS = 5000 + 2 * TIMEOUT_SECONDS * 1000 + 2000;
const asUser = (n: number) => ({ authorization: `Bearer nvapi-partition-${n}` });
const choice = (n: number) => (n % 2 ? 'yes' : 'no');

interface Pause {
  execution_id: string;
  response_url: string;
  status_url: string;
}

const inputOf = (request: ModelRequest) =>
  request.body.messages.find((m) => m.role === 'user')?.content ?? '';

/** Searches Wikipedia for its input, asks the person to confirm, and ends with the answer. */
function agentModel(request: ModelRequest): Reply {
  const last = request.body.messages.at(-1)!;
  const input = inputOf(request);
  if (last.role === 'user')
    return reply.tools([{ name: 'wikipedia_search', arguments: { question: input } }]);
  const asked = request.body.messages.some((m) =>
    JSON.stringify(m.tool_calls ?? []).includes('ask_confirmation'),
  );
  if (!asked)
    return reply.tools([{ name: 'ask_confirmation', arguments: { question: `Go on with ${input}?` } }]);
  const answer = JSON.parse(last.content ?? '{}') as { selected_option_id?: string };
  return reply.text(`${input}: ${answer.selected_option_id}`);
}

requires('postgres')('One replica partitioned from PostgreSQL and Redis', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('two replicas on the shared store, replica 0 through proxies of its own', () => {
    let llm: FakeLlm;
    let wiki: FakeWebApi;
    let pg: TcpProxy;
    let redis: TcpProxy;
    let set: ReplicaProcesses;
    const statuses: { what: string; status: number }[] = [];

    const send = async (method: string, path: string, to: number, n: number, body?: unknown) => {
      const res = await set.request(method, path, { to, headers: asUser(n), body });
      statuses.push({ what: `${method} ${path} on ${to}`, status: res.status });
      return res;
    };

    const until = (path: string, to: number, n: number, done: (r: Response) => boolean) =>
      set.until(path, to, done, { everyMs: 200, send: () => send('GET', path, to, n) });

    const finished = (r: Response) =>
      r.status === 200 && r.json.status !== 'running' && r.json.status !== 'waiting_for_input';

    beforeAll(async () => {
      llm = await FakeLlm.start();
      llm.respondWith(agentModel);
      wiki = await FakeWebApi.start(wikipediaAnswers([{ title: 'Partition', extract: 'partition job' }]));
      const db = new URL(process.env.DATABASE_URL!);
      const kv = new URL(process.env.REDIS_URL!);
      pg = await TcpProxy.start(db.hostname, Number(db.port || 5432));
      redis = await TcpProxy.start(kv.hostname, Number(kv.port || 6379));
      const urls = { db: '', redis: '' };
      const config = agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: ['wikipedia_search', 'ask_confirmation'] },
        {
          wikipedia_search: { _type: 'wiki_search', max_results: 1, base_url: `${wiki.url}/w/api.php` },
          ask_confirmation: { _type: 'ask_confirmation' },
        },
      );
      set = await ReplicaProcesses.start(2, config, {
        general: {
          executions: {
            lease_seconds: LEASE_SECONDS,
            postgres_query_timeout_seconds: TIMEOUT_SECONDS,
            redis_command_timeout_seconds: TIMEOUT_SECONDS,
          },
          outbound: { allow_hosts: ['127.0.0.1'] },
        },
        // Each replica reads its own way there: replica 0 through the proxies, replica 1 directly.
        dbUrl: (url) => ((urls.db = url), '${FAULTS_DB_URL}'),
        redisUrl: (url) => ((urls.redis = url), '${FAULTS_REDIS_URL}'),
        env: (i) =>
          i === 0
            ? { FAULTS_DB_URL: pg.via(urls.db), FAULTS_REDIS_URL: redis.via(urls.redis) }
            : { FAULTS_DB_URL: urls.db, FAULTS_REDIS_URL: urls.redis },
      });
    }, 3 * START_MS);

    afterAll(async () => {
      await set?.close();
      await pg?.close();
      await redis?.close();
      await llm?.close();
      await wiki?.close();
    });

    it(
      'the partitioned replica fences itself, the other completes its runs with each call made once; healed, it rejoins and runs nothing twice',
      async () => {
        const waiting: Pause[] = [];
        for (let n = 0; n < EACH; n++) {
          const res = await send('POST', '/v1/workflow', 0, n, { input_message: `partition job ${n}` });
          expect({ n, status: res.status, body: res.status === 202 ? '' : res.text }).toEqual({
            n,
            status: 202,
            body: '',
          });
          waiting.push(res.json as unknown as Pause);
        }
        // Each agent searched once and asked: two model calls, one search each so far.
        expect(llm.requests.length).toBe(2 * EACH);
        const searches = () => wiki.requests.filter((r) => r.query.list === 'search').length;
        expect(searches()).toBe(EACH);
        const wikiBefore = wiki.requests.length;

        pg.hang();
        redis.hang();
        const partitioned = Date.now();

        // Clients of the partitioned replica meanwhile: a poll, a new run and an answer, each answered
        // within the timeouts (not held until the partition heals).
        const requests = Promise.all(
          [
            send('GET', waiting[0].status_url, 0, 0),
            send('POST', '/v1/workflow', 0, EACH, { input_message: 'partition job late' }),
            send('POST', waiting[0].response_url, 0, 0, {
              response: { type: 'radio', selected_option: { id: choice(0) } },
            }),
          ].map((request) => {
            const started = Date.now();
            return request.then((res) => ({
              status: res.status,
              retryAfter: res.headers.get('retry-after'),
              text: res.text,
              ms: Date.now() - started,
            }));
          }),
        );
        // Not held until the partition heals: a request still unanswered by then is a hang.
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), PARTITION_MS - 1000);
        });
        const during = await Promise.race([requests, hung]);
        clearTimeout(timer);
        if (!during) throw new Error(`requests to the partitioned replica hang\n${set.output()}`);
        const [poll, late, refused] = during;
        process.stdout.write(
          `faults-partition: requests to replica 0 during it answered ${poll.status} (poll), ${late.status} (start), ${refused.status} (answer) after ${poll.ms}, ${late.ms}, ${refused.ms} ms\n`,
        );
        const unavailable = { status: 503, retryAfter: expect.stringMatching(/^\d+$/) };
        // A poll may be answered from what the replica holds; a start and an answer need the store.
        if (poll.status !== 200) expect(poll).toMatchObject(unavailable);
        expect(late).toMatchObject({ ...unavailable, text: expect.stringContaining('retry shortly') });
        expect(refused).toMatchObject(unavailable);
        for (const request of [poll, late, refused]) expect(request.ms).toBeLessThan(BOUND_MS);
        expect(Date.now() - partitioned).toBeLessThan(PARTITION_MS);
        // Replica 1 claims the runs once replica 0's lease ran out, and completes each on its answer (the
        // answer replica 0 refused was not applied: this one is the first).
        for (const [n, pause] of waiting.entries()) {
          const res = await send('POST', pause.response_url, 1, n, {
            response: { type: 'radio', selected_option: { id: choice(n) } },
          });
          expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
        }
        for (const [n, pause] of waiting.entries()) {
          const done = await until(pause.status_url, 1, n, finished);
          expect({ n, body: done.json }).toEqual({
            n,
            body: {
              execution_id: pause.execution_id,
              status: 'completed',
              result: { value: `partition job ${n}: ${choice(n)}` },
            },
          });
        }
        const completedMs = Date.now() - partitioned;
        // Replayed from the journal: the search and the first two model calls were not made again.
        expect(llm.requests.length).toBe(3 * EACH);
        expect(wiki.requests.length).toBe(wikiBefore);
        expect(await metricValue(set.url(1), 'interlude_durable_runs', { event: 'claimed' })).toBe(EACH);

        // `/metrics` tells an operator which dependencies the replica cannot reach, once something
        // it sent on their connections timed out (here, at the latest, the readiness probe's checks).
        expect((await send('GET', '/health/ready', 0, 0)).status).toBe(503);
        const up = (to: number, dependency: string) =>
          metricValue(set.url(to), 'interlude_dependency_up', { dependency });
        const upOn0 = async () => ({ postgres: await up(0, 'postgres'), redis: await up(0, 'redis') });
        const told = Date.now() + 2 * TIMEOUT_SECONDS * 1000 + 3000;
        while (JSON.stringify(await upOn0()) !== '{"postgres":0,"redis":0}' && Date.now() < told)
          await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await upOn0()).toEqual({ postgres: 0, redis: 0 });
        expect({ postgres: await up(1, 'postgres'), redis: await up(1, 'redis') }).toEqual({
          postgres: 1,
          redis: 1,
        });
        // And its log said so, one line each: PostgreSQL lost, Redis reconnecting, runs fenced.
        const said = set.output().split('--- replica 1')[0];
        expect(said).toMatch(/connection lost \(Query read timeout\)/);
        expect(said).toMatch(/commands\): Socket timeout[^\n]*; reconnecting/);
        expect(said).toMatch(/self-fenced/);

        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, PARTITION_MS - (Date.now() - partitioned))),
        );
        pg.heal();
        redis.heal();
        const healed = Date.now();
        await until('/health/ready', 0, 0, (r) => r.status === 200);
        const readyMs = Date.now() - healed;
        const reconnects = (dependency: string) =>
          metricValue(set.url(0), 'interlude_dependency_reconnects', { dependency });
        expect({ postgres: await up(0, 'postgres'), redis: await up(0, 'redis') }).toEqual({
          postgres: 1,
          redis: 1,
        });
        expect(await reconnects('postgres')).toBeGreaterThanOrEqual(1);
        expect(await reconnects('redis')).toBeGreaterThanOrEqual(1);

        // It stopped acting on all of them (self-fenced) and took none back: replica 1 had them.
        expect(await metricValue(set.url(0), 'interlude_durable_runs', { event: 'fenced' })).toBe(EACH);
        expect(await metricValue(set.url(0), 'interlude_durable_runs', { event: 'reclaimed' })).toBe(0);
        // Longer than a lease after it is back: nothing ran twice, every run stays as it ended, and the
        // run refused with 503 ran nowhere (what replica 0 had sent of it was not delivered late).
        await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_SECONDS * 1000));
        expect(llm.requests.length).toBe(3 * EACH);
        expect(searches()).toBe(EACH);
        for (const [n, pause] of waiting.entries()) {
          const res = await send('GET', pause.status_url, 0, n);
          expect({ n, status: res.json.status }).toEqual({ n, status: 'completed' });
        }
        // Rejoined without a restart: it runs a new agent to its prompt and on to its end.
        const fresh = await send('POST', '/v1/workflow', 0, EACH, { input_message: 'partition job after' });
        expect(fresh.status).toBe(202);
        const pause = fresh.json as unknown as Pause;
        const answered = await send('POST', pause.response_url, 0, EACH, {
          response: { type: 'radio', selected_option: { id: 'yes' } },
        });
        expect(answered.status).toBe(204);
        const done = await until(pause.status_url, 0, EACH, finished);
        expect(done.json.result).toEqual({ value: 'partition job after: yes' });

        expect(statuses.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
        expect(set.exited()).toEqual([]);
        process.stdout.write(
          `faults-partition: runs completed on replica 1 ${completedMs} ms after the partition; replica 0 ready ${readyMs} ms after it healed\n`,
        );
      },
      PARTITION_MS + 6 * START_MS,
    );
  });
});
