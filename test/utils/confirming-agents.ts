import { FakeLlm, reply, type ModelRequest, type Reply } from './fake-llm';
import { agentYaml } from './fake-llm-config';
import { metricValue } from './metrics';
import { OwnRedis } from './own-redis';
import { ReplicaProcesses, type Response } from './replica-processes';
import { START_MS, WAIT_MS } from './timing';

/** What `/v1/workflow` answers (202) for a run that waits for a person. */
export interface Pause {
  execution_id: string;
  interaction_id: string;
  response_url: string;
  status_url: string;
}

/** The option user `n` picks. */
export const choice = (n: number) => (n % 2 ? 'yes' : 'no');

/** The user's message of a model request (the agent's input). */
export const inputOf = (request: ModelRequest) =>
  request.body.messages.find((m) => m.role === 'user')?.content ?? '';

/**
 * The model of an agent that asks the person to confirm: asked first, it calls ask_confirmation about
 * its own input; given the answer, it ends with the input and the option the person picked.
 */
export function confirmingModel(request: ModelRequest): Reply {
  const last = request.body.messages.at(-1)!;
  const input = inputOf(request);
  if (last.role === 'user') {
    return reply.tools([{ name: 'ask_confirmation', arguments: { question: `Go on with ${input}?` } }]);
  }
  const answer = JSON.parse(last.content ?? '{}') as { selected_option_id?: string };
  return reply.text(`${input}: ${answer.selected_option_id}`);
}

/** The config of that agent on `llm` (a tool-calling agent with ask_confirmation). */
export function confirmingAgentYaml(llm: FakeLlm): string {
  return agentYaml(
    llm,
    { _type: 'tool_calling_agent', tool_names: ['ask_confirmation'] },
    { ask_confirmation: { _type: 'ask_confirmation' } },
  );
}

/**
 * Confirming agents on a set of replicas, as users numbered `n` (`Bearer nvapi-<user>-<n>`): started,
 * answered and polled to their end, every status a request got kept (a fault test allows no 5xx but 503).
 */
export class ConfirmingAgents {
  readonly statuses: number[] = [];

  constructor(
    private readonly set: ReplicaProcesses,
    private readonly user: string,
  ) {}

  asUser(n: number): Record<string, string> {
    return { authorization: `Bearer nvapi-${this.user}-${n}` };
  }

  async send(method: string, path: string, to: number, n: number, body?: unknown): Promise<Response> {
    const res = await this.set.request(method, path, { to, headers: this.asUser(n), body });
    this.statuses.push(res.status);
    return res;
  }

  /** Polls `path` on replica `to` as user `n` until `done`. */
  until(path: string, to: number, n: number, done: (r: Response) => boolean, within = WAIT_MS) {
    const send = () => this.send('GET', path, to, n);
    return this.set.until(path, to, done, { within, everyMs: 200, send });
  }

  /** How many executions replica `to` claimed from replicas gone (or stalled past their lease) so far. */
  claimed(to: number): Promise<number> {
    return metricValue(this.set.url(to), 'interlude_durable_runs', { event: 'claimed' });
  }

  /** `count` agents waiting in ask_confirmation, started on the replicas in turn (user `n` on `n % 2`). */
  async waiting(tag: string, count: number): Promise<Pause[]> {
    const waiting: Pause[] = [];
    for (let n = 0; n < count; n++) {
      const res = await this.send('POST', '/v1/workflow', n % 2, n, { input_message: `${tag}-${n}` });
      expect({ n, status: res.status }).toEqual({ n, status: 202 });
      waiting.push(res.json as unknown as Pause);
    }
    return waiting;
  }

  /** User `n` answers with `choice(n)` on replica `to`. */
  answer(pause: Pause, n: number, to: number): Promise<Response> {
    return this.send('POST', pause.response_url, to, n, {
      response: { type: 'radio', selected_option: { id: choice(n) } },
    });
  }

  /** Each run completes with its input and its user's choice, as polled on the replica that did not start it. */
  async complete(waiting: Pause[], tag: string): Promise<void> {
    for (const [n, pause] of waiting.entries()) {
      const done = await this.until(
        pause.status_url,
        (n + 1) % 2,
        n,
        (r) => r.status === 200 && r.json.status !== 'running' && r.json.status !== 'waiting_for_input',
        2 * WAIT_MS,
      );
      expect({ n, body: done.json }).toEqual({
        n,
        body: {
          execution_id: pause.execution_id,
          status: 'completed',
          result: { value: `${tag}-${n}: ${choice(n)}` },
        },
      });
    }
  }
}

/** A suite's two replicas of the confirming agent, on a redis-server of its own a test may kill. */
export interface OwnRedisReplicas {
  llm: FakeLlm;
  redis: OwnRedis;
  set: ReplicaProcesses;
  agents: ConfirmingAgents;
}

/**
 * Two replicas of the confirming agent (leases of `leaseSeconds`) on the machine's PostgreSQL and a
 * redis-server of the suite's own, started before its tests and stopped after them; after each test,
 * no request through `agents` may have met a 5xx other than 503 (what a client may meet in an outage).
 * The fields are set once the suite has started. Needs `npm run build`.
 */
export function ownRedisReplicas(user: string, leaseSeconds: number): OwnRedisReplicas {
  const suite = {} as OwnRedisReplicas;
  beforeAll(async () => {
    suite.llm = await FakeLlm.start();
    suite.llm.respondWith(confirmingModel);
    const redis = (suite.redis = await OwnRedis.start());
    suite.set = await ReplicaProcesses.start(2, confirmingAgentYaml(suite.llm), {
      general: { executions: { lease_seconds: leaseSeconds } },
      redisUrl: () => redis.url,
    });
    suite.agents = new ConfirmingAgents(suite.set, user);
  }, 3 * START_MS);

  afterAll(async () => {
    await suite.set?.close();
    await suite.redis?.down();
    await suite.llm?.close();
  });

  afterEach(() => {
    expect((suite.agents?.statuses ?? []).filter((s) => s >= 500 && s !== 503)).toEqual([]);
  });
  return suite;
}
