'use strict';
/**
 * The "Several replicas" section of bench/RESULTS.md from bench/replicas.js's measures, with the targets
 * issue 32 set for answers across replicas and for a replica's death.
 */
const { fmt, ratio, table } = require('./lib/report');
const { largeRequestsTable } = require('./replicas-large');

const HEADING = '## Several replicas';
const GIB = 1024 ** 3;

/** ms, p99, on two replicas: an answer accepted on one (its 204), the workflow resumed on the other. */
const TARGET = { answered: 5, resumed: 8 };
/** Every orphan of a replica killed claimed within its lease and this much more. */
const CLAIM_SLACK_MS = 1000;

const LABEL = {
  memory: 'memory store, one server',
  postgres: 'PostgreSQL + Redis, two replicas',
};

const FLOOR_LABEL = 'the same hops, bare processes';

const ms = (x) => fmt(x, 2);

/** [target, measured, met] for the replicas' row; none when a part was not measured. */
function targets(shared, takeover, S) {
  const rows = [];
  if (shared?.resume) {
    const { answered, resumed } = shared.resume;
    rows.push([
      `answer → 204 p99 ≤ ${TARGET.answered} ms`,
      `${ms(answered.p99)} ms`,
      answered.p99 <= TARGET.answered,
    ]);
    rows.push([
      `answer → workflow resumed on the other replica p99 ≤ ${TARGET.resumed} ms`,
      `${ms(resumed.p99)} ms`,
      resumed.p99 <= TARGET.resumed,
    ]);
  }
  if (takeover && !takeover.unsupported) {
    const bound = S.leaseSeconds * 1000 + CLAIM_SLACK_MS;
    const measured = Number.isFinite(takeover.ms)
      ? `${fmt(takeover.ms)} ms`
      : `${fmt(takeover.claimed)} of ${fmt(takeover.count)} claimed`;
    rows.push([
      `SIGKILL → ${fmt(takeover.count)} orphans claimed ≤ lease + 1 s (${fmt(bound)} ms)`,
      measured,
      takeover.ms <= bound,
    ]);
  }
  return rows;
}

function replicasSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const memory = r.rows.find((x) => x.store === 'memory');
  const rows = r.rows.map((x) => [
    LABEL[x.store],
    fmt(x.park),
    fmt(x.poll.rps),
    `${ms(x.poll.p50)} / ${ms(x.poll.p99)}`,
    ratio(x.poll.rps, memory.poll.rps),
    `${ms(x.resume.resumed.p50)} / ${ms(x.resume.resumed.p99)}`,
    `${ms(x.resume.completed.p50)} / ${ms(x.resume.completed.p99)}`,
    `${ms(x.resume.answered.p50)} / ${ms(x.resume.answered.p99)}`,
  ]);
  const floor = r.rows.find((x) => x.floor)?.floor;
  if (floor) {
    rows.push([
      FLOOR_LABEL,
      '',
      '',
      '',
      '',
      `${ms(floor.resumed.p50)} / ${ms(floor.resumed.p99)}`,
      '',
      `${ms(floor.answered.p50)} / ${ms(floor.answered.p99)}`,
    ]);
  }
  const shared = r.rows.find((x) => x.store === 'postgres');
  const perGib = (bytes) => (bytes > 0 ? fmt(GIB / bytes) : 'n/a');
  const storeTable = shared?.bytes
    ? table(
        [
          `where (${fmt(S.waiting)} waiting executions)`,
          'bytes per waiting execution',
          'waiting executions per GiB',
        ],
        [
          [
            'PostgreSQL (pg_total_relation_size of the schema)',
            fmt(shared.bytes.pg),
            perGib(shared.bytes.pg),
          ],
          [
            `Redis (MEMORY USAGE of the prefix's keys; ${fmt(shared.bytes.redisKeys, 1)} keys each)`,
            fmt(shared.bytes.redis),
            perGib(shared.bytes.redis),
          ],
          ...shared.bytes.redisKinds.map(([kind, used]) => [`  of which \`${kind}\``, fmt(used), '']),
        ],
      )
    : '';
  const t = shared?.takeover;
  const goals = targets(shared, t, S);
  const met = goals.filter((g) => g[2]).length;
  const goalTable = goals.length
    ? `Targets (issue 32; the memory store and the floor above are their baselines in this run), met: ${met}/${goals.length}:

${table(
  ['target', 'measured', 'result'],
  goals.map(([what, measured, ok]) => [what, measured, ok ? 'PASS' : 'FAIL']),
)}
`
    : '';
  const takeover = !t
    ? ''
    : t.unsupported
      ? `- SIGKILL → claimed: not measured (${t.unsupported}).\n`
      : `- SIGKILL → claimed: A ran ${fmt(t.count)} waiting executions (${fmt(t.fresh)} parked on it just before, the rest its share of the ${fmt(S.waiting - S.resumes)} still waiting from above); A killed with SIGKILL, \`lease_seconds: ${S.leaseSeconds}\`: ${Number.isFinite(t.ms) ? `all claimed by B after **${fmt(t.ms)} ms**` : `only ${fmt(t.claimed)} claimed before the deadline`} (the store's \`execution_record.replica\` polled every 20 ms until none names A). The memory store has nothing to claim: a dead server's waits are lost.\n`;
  const text = `${HEADING}

- Command: \`node bench/run.js --only replicas\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; commit ${env.commit}; load average at start ${env.load}; ${pin}
- Each server is a real \`interlude serve\` process (\`LOG_LEVEL=warn\`); the two replicas share one
  PostgreSQL schema and one Redis key prefix (\`general.executions.store: postgres\`) and are pinned to the
  same core as the single memory-store server, so the rows compare stores, not core counts.
- Workflow: scripted, a text prompt, then \`stream: 'hi {{name}}'\`, output \`'Hello {{name}}'\`. ${fmt(S.waiting)}
  executions parked (POST /v1/workflow → 202, ${S.parkInFlight} in flight, sent to the replicas in turn) after
  ${fmt(S.warm)} run to the end the way the answers below are (re-attached and answered on the next replica, 8
  at a time): V8 compiles a server's hot paths over its first thousands of requests, on helper
  threads that take the core the replicas share.
- Polls: ${S.pollConnections} keep-alive clients, GET /executions/{id} back to back for ${S.pollMs / 1000} s, cycling through the
  waiting ids, each request to the next replica.
- Answer → resumed, completed and 204: ${fmt(S.resumes)} executions one at a time, each started on A:
  re-attach \`GET /executions/{id}/stream\` on B, wait for its replayed \`interaction_required\`, POST the answer
  on B, time the stream's next frame (the resumed workflow's first event, written by A, read back by B),
  the end of the stream (its \`completed\` frame, written by A once the run's end is committed) and B's 204.
- ${FLOOR_LABEL} (\`bench/answer-floor.js\`): the floor of those answer figures on this machine. The
  same answers, timed the same way, to two bare processes (\`pg\`, \`ioredis\`, \`node:http\`, pinned like
  the replicas) that make only the network hops of an answer across replicas: the record read on
  re-attach, the write's notice (PUBLISH), the UPDATE compared with the text read, the 204, the
  wake-up (PUBLISH), the resumed event appended by the other (XADD) and relayed (XREAD BLOCK), on a
  copy of ${fmt(S.resumes)} more waiting executions' records, right after the replicas' answers and after
  ${fmt(S.warm)} more answered the same way.
${takeover}${r.skipped.map((s) => `- Not measured: ${s}\n`).join('')}
${table(
  [
    'store',
    'parked/s',
    'polls/s',
    'poll p50 / p99 ms',
    'polls vs memory',
    'answer → resumed p50 / p99 ms',
    'answer → completed p50 / p99 ms',
    'answer → 204 p50 / p99 ms',
  ],
  rows,
)}

${goalTable}
${storeTable}
${
  r.large?.length
    ? `
Large requests on the PostgreSQL + Redis store (one \`interlude serve\`, \`bench/replicas-large.js\`): the
demo workflow of \`config/default.yml\` quotes its input in two tool steps, the streamed text and its
result; each request is sent with the largest body the server takes (9 MiB, else the streaming limit),
read to its end, and the Redis keys of the deployment measured with MEMORY USAGE, less what they held
before. Event logs are bounded by \`max_event_log_bytes_per_execution\` (1 MiB) and
\`max_event_log_bytes\` (64 MiB per replica) in Redis too; an event larger than the bound is kept as
a stand-in, a result or prompt read from the execution's record.

${largeRequestsTable(r.large)}
`
    : ''
}`;
  return { text: `${text.replace(/\n{3,}/g, '\n\n').trimEnd()}\n`, passed: met, total: goals.length };
}

module.exports = { replicasSection, HEADING };
