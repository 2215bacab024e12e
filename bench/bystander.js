'use strict';
/**
 * What a replica pays for the others' traffic, measured directly: three replicas of one deployment on
 * one core, round trips between R1 and R2 only (started on one, answered on the other), and the CPU of
 * R3, which takes no part in them, against its own CPU while nobody sends anything. Windows of the two
 * kinds are taken in turns (which goes first alternates). A replica woken by every record change or
 * answer of the others pays for each (a wake-up of an idle process); one told only of the executions
 * it takes part in pays nothing.
 *
 * Part of `node bench/run.js --only scaleout` (bench/scale-out.js); reported in its section.
 */
const http = require('node:http');
const { nowMs, paced } = require('./lib/clients');
const { fmt, median, table } = require('./lib/report');
const { startReplica } = require('./lib/replica-servers');
const { deployment, roundTrip, stopAll } = require('./shared-store');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** R3's CPU µs per second over `seconds`, with round trips at `rate`/s between R1 and R2 or none. */
async function bystanderWindow(replicas, fire, rate, seconds) {
  const r3 = replicas[2];
  const cpu0 = r3.cpuMicros();
  const t0 = nowMs();
  const trips = rate ? await paced({ rate, seconds, fire }) : (await sleep(seconds * 1000), 0);
  const elapsed = (nowMs() - t0) / 1000;
  return { perSecond: (r3.cpuMicros() - cpu0) / elapsed, trips: trips / elapsed };
}

async function measureBystander(S, dir) {
  const dep = deployment('postgres', 'hitl', dir);
  const set = { replicas: [], dep };
  const agent = new http.Agent({ keepAlive: true, scheduling: 'fifo', maxSockets: 32 });
  try {
    for (const name of ['R1', 'R2', 'R3']) set.replicas.push(await startReplica(dep.file, name));
    // Started on R1 and R2 in turns, answered on the other.
    const fire = roundTrip(
      agent,
      set.replicas.slice(0, 2).map((r) => r.port),
    );
    // Round trips between R1 and R2 at the rate the scale-out part offers two replicas of three.
    const rate = 2 * S.rate.hitl;
    await paced({ rate: 4 * rate, seconds: S.warmup, fire });
    const idle = [];
    const busy = [];
    for (let r = 0; r < S.rounds; r++) {
      const order = r % 2 === 0 ? [idle, busy] : [busy, idle];
      for (const into of order) {
        into.push(await bystanderWindow(set.replicas, fire, into === busy ? rate : 0, S.seconds));
      }
    }
    const result = {
      rate,
      rounds: S.rounds,
      seconds: S.seconds,
      idle: median(idle.map((w) => w.perSecond)),
      busy: median(busy.map((w) => w.perSecond)),
      trips: median(busy.map((w) => w.trips)),
      // Per round, the busy window against the idle one taken next to it.
      ratio: median(busy.map((w, r) => w.perSecond / idle[r].perSecond)),
    };
    process.stdout.write(
      `  bystander: ${fmt(result.busy)} µs/s during others' round trips, ${fmt(result.idle)} µs/s idle (${fmt(result.ratio, 2)}×)\n`,
    );
    return result;
  } finally {
    agent.destroy();
    await stopAll([set]);
  }
}

function bystanderText(b) {
  if (!b) return '';
  const perTrip = (b.busy - b.idle) / b.trips;
  return `
A replica that takes no part in the others' traffic: 3 replicas, ${fmt(b.rate)} round trips/s between R1 and R2
only (started on each in turns, answered on the other), and R3's CPU (its threads' time on a core)
during them against its CPU while nobody sends anything; ${b.rounds} windows of each kind, ${b.seconds} s, in turns;
"vs idle" is the median over the rounds of each busy window against the idle one next to it. Target:
about 1.00× (a replica is not woken by executions it has no part in).

${table(
  [
    'R3 idle: CPU µs per second',
    'R3 during R1 ↔ R2 round trips: CPU µs per second',
    'vs idle',
    'R3 µs per round trip beyond idle',
  ],
  [[fmt(b.idle), fmt(b.busy), `**${fmt(b.ratio, 2)}×**`, fmt(perTrip)]],
)}
`;
}

module.exports = { measureBystander, bystanderText };
