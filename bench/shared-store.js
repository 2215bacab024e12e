'use strict';
/**
 * The shared store (`general.executions.store: postgres`, Redis for event logs and wake-ups) against the
 * memory store in the same run, each a real `interlude serve` process (dist/cli.js) pinned to the same
 * core, rounds taken in turns so that noise falls on both:
 *
 *  1. `POST /v1/workflow` with the echo workflow, and with a scripted workflow that asks nobody (a step,
 *     a streamed text, an output): requests/s, latency, server CPU per request.
 *  2. Status polls: `GET /executions/{id}` of executions waiting on a prompt (parked on the server
 *     polled), cycling through them.
 *  3. Scale-out (`--only scaleout`, bench/scale-out.js): 1, 2 and 3 replicas of the shared store.
 *
 * Run by `node bench/run.js --only shared` (needs DATABASE_URL and REDIS_URL); --quick for a smoke run.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');
const { pool, send } = require('./lib/clients');
const { fmt, table } = require('./lib/report');
const { cleanup, startReplica } = require('./lib/replica-servers');

const HEADING = '## The shared store against memory';

function settings(quick) {
  return {
    connections: 20,
    warmup: quick ? 1 : 3,
    roundSeconds: quick ? 2 : 5,
    rounds: quick ? 1 : 5,
    parked: quick ? 200 : 1000,
  };
}

const LIMITS = `  max_waiting_executions: 100000
  max_waiting_executions_per_user: 100000
  max_anonymous_waiting_executions: 100000
  max_waiting_executions_per_address: 100000
`;

const WORKFLOWS = {
  echo: {
    label: 'echo',
    yaml: 'workflow:\n  _type: echo\n',
    body: JSON.stringify({ message: 'hello world' }),
    expect: '{"value":"hello world"}',
  },
  scripted: {
    label: 'scripted, no prompt (a step, a streamed text, an output)',
    yaml: `workflow:
  _type: scripted
  steps:
    - step: { name: look-up, payload: 'found' }
    - stream: { text: 'hi {{input}}' }
  output: 'Hello {{input}}'
`,
    body: JSON.stringify({ input_message: 'Ann' }),
    expect: 'Hello Ann',
  },
  hitl: {
    yaml: `workflow:
  _type: scripted
  steps:
    - prompt: { input_type: text, text: 'Your name?', save_as: name }
    - stream: { text: 'hi {{name}}' }
  output: 'Hello {{name}}'
`,
  },
};

/** A deployment of `store` running `workflow`: its config file and, for postgres, its schema and prefix. */
function deployment(store, workflow, dir, extra = '') {
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_shared_${tag}`;
  const prefix = `interlude-bench:${tag}:`;
  const file = path.join(dir, `shared-${store}-${tag}.yml`);
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://unused/none');
  url.searchParams.set('schema', schema);
  const general =
    store === 'memory'
      ? `general:\n${LIMITS}`
      : `general:\n${LIMITS}  db_url: '${url}'\n  executions:\n    store: postgres\n    redis_url: '${process.env.REDIS_URL}'\n    redis_key_prefix: '${prefix}'\n${extra}`;
  fs.writeFileSync(file, `${general}${WORKFLOWS[workflow].yaml}`);
  return {
    store,
    file,
    schema,
    prefix,
    clean: () => (store === 'memory' ? undefined : cleanup(schema, prefix)),
  };
}

/**
 * A person's round trip on the `hitl` workflow: the k-th is started on `ports[k mod n]` (POST
 * /v1/workflow → 202) and answered (→ 204) on the next port, or (`across` false) on the same one.
 */
function roundTrip(agent, ports, across = true) {
  return async (k) => {
    const start = await send(agent, ports[k % ports.length], 'POST', '/v1/workflow', { input_message: 'x' });
    if (start.status !== 202) throw new Error(`start answered ${start.status} ${start.body}`);
    const { response_url } = JSON.parse(start.body);
    const answer = { response: { type: 'text', text: 'Ann' } };
    const r = await send(agent, ports[(k + (across ? 1 : 0)) % ports.length], 'POST', response_url, answer);
    if (r.status !== 204) throw new Error(`answer answered ${r.status} ${r.body}`);
  };
}

/** One autocannon run against `port`; `paths` (cycled) for GETs, else POST /v1/workflow with `body`. */
function load({ port, body, paths, connections, duration }) {
  let next = 0;
  const request = paths
    ? { method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }
    : { method: 'POST', path: '/v1/workflow', body, headers: { 'content-type': 'application/json' } };
  return new Promise((resolve, reject) =>
    autocannon(
      { url: `http://127.0.0.1:${port}`, connections, duration, requests: [request] },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
}

/** Load on every server in turns; per server: req/s, p50/p99 ms, server CPU µs per request. */
async function interleaved(servers, S, request) {
  const totals = servers.map(() => ({
    requests: 0,
    seconds: 0,
    cpu: 0,
    rps: [],
    p50: [],
    p99: [],
    failures: 0,
  }));
  for (const s of servers) await load({ ...request(s), connections: S.connections, duration: S.warmup });
  for (let r = 0; r < S.rounds; r++) {
    const order = r % 2 ? [...servers].reverse() : servers;
    for (const s of order) {
      const t = totals[servers.indexOf(s)];
      const cpu0 = s.replicas.reduce((sum, x) => sum + x.cpuMicros(), 0);
      const res = await load({ ...request(s), connections: S.connections, duration: S.roundSeconds });
      t.cpu += s.replicas.reduce((sum, x) => sum + x.cpuMicros(), 0) - cpu0;
      t.requests += res.requests.total;
      t.seconds += res.duration;
      t.rps.push(res.requests.total / res.duration);
      t.p50.push(res.latency.p50);
      t.p99.push(res.latency.p99);
      t.failures += res.errors + res.timeouts + res.non2xx;
      process.stdout.write(
        `  round ${r + 1}/${S.rounds} ${s.label}: ${fmt(res.requests.total / res.duration)} req/s\n`,
      );
    }
  }
  return totals.map((t, i) => {
    if (t.failures > 0) throw new Error(`${servers[i].label}: ${t.failures} failed requests under load`);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return {
      rps: t.requests / t.seconds,
      p50: median(t.p50),
      p99: median(t.p99),
      cpuPerRequest: t.cpu / t.requests,
      rounds: { rps: t.rps, p99: t.p99 },
    };
  });
}

async function started(dep, label) {
  return { label, dep, replicas: [await startReplica(dep.file, label)] };
}

async function stopAll(servers) {
  for (const s of servers) {
    await Promise.all(s.replicas.map((r) => r.kill('SIGKILL')));
    await s.dep.clean();
  }
}

async function checkAnswer(s, spec) {
  const r = await send(undefined, s.replicas[0].port, 'POST', '/v1/workflow', JSON.parse(spec.body));
  if (r.status !== 200 || !r.body.includes(spec.expect))
    throw new Error(`${s.label}: /v1/workflow answered ${r.status} ${r.body}`);
}

async function measureWorkflow(kind, S, dir) {
  const spec = WORKFLOWS[kind];
  const servers = [];
  try {
    servers.push(await started(deployment('memory', kind, dir), 'memory'));
    servers.push(await started(deployment('postgres', kind, dir), 'shared'));
    for (const s of servers) await checkAnswer(s, spec);
    const [memory, shared] = await interleaved(servers, S, (s) => ({
      port: s.replicas[0].port,
      body: spec.body,
    }));
    return { kind, label: spec.label, memory, shared };
  } finally {
    await stopAll(servers);
  }
}

async function measurePolls(S, dir) {
  const servers = [];
  try {
    servers.push(await started(deployment('memory', 'hitl', dir), 'memory'));
    servers.push(await started(deployment('postgres', 'hitl', dir), 'shared'));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    for (const s of servers) {
      s.paths = [];
      await pool(S.parked, 50, async (i) => {
        const r = await send(agent, s.replicas[0].port, 'POST', '/v1/workflow', { input_message: 'x' });
        if (r.status !== 202) throw new Error(`${s.label}: start answered ${r.status} ${r.body}`);
        s.paths[i] = JSON.parse(r.body).status_url;
      });
    }
    agent.destroy();
    const [memory, shared] = await interleaved(servers, S, (s) => ({
      port: s.replicas[0].port,
      paths: s.paths,
    }));
    return { memory, shared };
  } finally {
    await stopAll(servers);
  }
}

async function measureShared({ quick = false } = {}) {
  const S = settings(quick);
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
    return { settings: S, skipped: 'DATABASE_URL or REDIS_URL is not set', rows: [] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-shared-'));
  try {
    const rows = [];
    for (const kind of ['echo', 'scripted']) {
      console.log(`  /v1/workflow, ${kind}`);
      rows.push(await measureWorkflow(kind, S, dir));
    }
    console.log('  status polls');
    const polls = await measurePolls(S, dir);
    return { settings: S, rows, polls };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (x) => fmt(x, 2);

/**
 * The median over the rounds of `x`'s figure against `memory`'s in the same round: the two rounds of a
 * pair run back to back, so a load that comes and goes on this shared machine (one server's rounds
 * 2× apart within a run) falls on both sides of each ratio rather than on one side of the totals.
 */
function pairedRatio(x, memory, figure) {
  const ratios = x.rounds[figure].map((v, i) => v / memory.rounds[figure][i]).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)];
}

function sharedSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  if (r.skipped) return { text: `${HEADING}\n\n- Not measured: ${r.skipped}.\n`, passed: 0, total: 0 };
  const line = (what, x, memory) => [
    what,
    fmt(x.rps),
    `${ms(x.p50)} / ${ms(x.p99)}`,
    fmt(x.cpuPerRequest),
    `${fmt(pairedRatio(x, memory, 'rps'), 2)}×`,
    `${fmt(pairedRatio(x, memory, 'p99'), 2)}×`,
  ];
  const rows = [];
  let passed = 0;
  let total = 0;
  const target = (x, memory) => {
    total++;
    if (pairedRatio(x, memory, 'rps') >= 0.8) passed++;
  };
  for (const w of r.rows) {
    rows.push(line(`\`/v1/workflow\` ${w.label}, memory`, w.memory, w.memory));
    rows.push(line(`\`/v1/workflow\` ${w.label}, shared`, w.shared, w.memory));
    target(w.shared, w.memory);
  }
  rows.push(line(`status polls (${fmt(S.parked)} waiting), memory`, r.polls.memory, r.polls.memory));
  rows.push(line(`status polls (${fmt(S.parked)} waiting), shared`, r.polls.shared, r.polls.memory));
  target(r.polls.shared, r.polls.memory);
  const text = `${HEADING}

- Command: \`node bench/run.js --only shared\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; commit ${env.commit}; load average at start ${env.load}; ${pin}
- Each server is one \`interlude serve\` process (\`LOG_LEVEL=warn\`): \`general.executions.store: memory\`, or
  \`postgres\` with Redis (its own schema and key prefix); ${S.connections} autocannon connections, ${S.rounds} rounds of
  ${S.roundSeconds} s per server taken in turns after a ${S.warmup} s warm-up; req/s over all rounds, latency the
  median of the rounds' percentiles; "vs memory" is the median over the rounds of the ratio to the memory
  store's round taken next to it (the load of this shared machine moves between rounds); CPU is the
  server process's time on a core over its rounds (/proc/<pid>/task/*/schedstat).
- Targets: the shared store at ≥ 0.8× the memory store's requests/s (met: ${passed}/${total}).

${table(['what', 'req/s', 'p50 / p99 ms', 'server CPU µs/request', 'vs memory', 'p99 vs memory'], rows)}
`;
  return { text, passed, total };
}

module.exports = { measureShared, sharedSection, HEADING, deployment, WORKFLOWS, load, roundTrip, stopAll };
