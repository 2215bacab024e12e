'use strict';
const http = require('node:http');
const autocannon = require('autocannon');
const { affinity } = require('./servers');
const { fmt } = require('./report');

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * One POST with a raw http.request. Times (ms, from the moment the request was ended) to the
 * response headers, to the first body chunk and to the end of the body.
 */
function timedPost({ agent, port, path, body, headers = {}, keepBody = false }) {
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    let t0 = 0;
    req.on('error', reject);
    req.on('response', (res) => {
      const headers = nowMs() - t0;
      let first;
      let bytes = 0;
      const parts = [];
      res.on('data', (chunk) => {
        if (first === undefined) first = nowMs() - t0;
        bytes += chunk.length;
        if (keepBody) parts.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers,
          firstByte: first ?? NaN,
          total: nowMs() - t0,
          bytes,
          body: keepBody ? Buffer.concat(parts).toString('utf8') : undefined,
          responseHeaders: res.headers,
        }),
      );
    });
    req.end(payload);
    t0 = nowMs();
  });
}

/** `count` sequential requests on `agent` (one keep-alive connection); checks every stream's length. */
async function sequentialRuns({ agent, port, path, body, expectBytes, count }) {
  const runs = [];
  for (let i = 0; i < count; i++) {
    const r = await timedPost({ agent, port, path, body });
    if (r.status !== 200 || r.bytes !== expectBytes)
      throw new Error(`stream answered ${r.status} with ${r.bytes} bytes, expected 200 with ${expectBytes}`);
    runs.push(r);
  }
  return runs;
}

/** TTFB and time-to-headers percentiles of sequential runs, and their summed duration. */
function summarizeRuns(runs) {
  const sorted = (key) => runs.map((r) => r[key]).sort((a, b) => a - b);
  const ttfb = sorted('firstByte');
  const headers = sorted('headers');
  return {
    count: runs.length,
    ttfbP50: percentile(ttfb, 0.5),
    ttfbP99: percentile(ttfb, 0.99),
    headersP50: percentile(headers, 0.5),
    headersP99: percentile(headers, 0.99),
    streamP50: percentile(sorted('total'), 0.5),
    totalMs: runs.reduce((sum, r) => sum + r.total, 0),
  };
}

/** `connections` clients each streaming back to back until `durationMs` is up. Returns bytes and time. */
async function concurrentStreams({ port, path, body, expectBytes, connections, durationMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const started = nowMs();
  const deadline = started + durationMs;
  let streams = 0;
  let bytes = 0;
  const loop = async () => {
    while (nowMs() < deadline) {
      const r = await timedPost({ agent, port, path, body });
      if (r.status !== 200 || r.bytes !== expectBytes)
        throw new Error(
          `stream answered ${r.status} with ${r.bytes} bytes, expected 200 with ${expectBytes}`,
        );
      streams++;
      bytes += r.bytes;
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
    return { streams, bytes, elapsedMs: nowMs() - started };
  } finally {
    agent.destroy();
  }
}

/**
 * One autocannon run (in this process, so on this process's core). The result is not aggregated:
 * run.js merges the rounds of one server with autocannon.aggregateResult().
 */
function cannon({ port, path, body, connections, duration, headers = {} }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}${path}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
        connections,
        duration,
        skipAggregateResult: true,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** One JSON request on a keep-alive `agent`: status, body text, and ms to the response's headers. */
function send(agent, port, method, urlPath, body) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      method,
      path: urlPath,
      headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const at = nowMs();
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, body: Buffer.concat(parts).toString(), ms: at - t0 }),
      );
    });
    req.end(payload);
  });
}

/** Runs `fn(0…count-1)` with at most `concurrency` calls at a time. */
async function pool(count, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * An open-loop load: `fire(k)` called `rate` times a second, evenly spaced (not in bursts, as
 * autocannon's rate limit sends each connection's quota at the top of every second), `seconds` long,
 * whatever the answers' latency. Resolves with the calls made once all of them have settled.
 */
async function paced({ rate, seconds, fire }) {
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const t0 = nowMs();
  const calls = [];
  while (calls.length < total) {
    const due = Math.min(total, Math.floor((nowMs() - t0) / interval) + 1);
    while (calls.length < due) calls.push(fire(calls.length));
    if (calls.length < total)
      await new Promise((r) => setTimeout(r, Math.max(1, t0 + calls.length * interval - nowMs())));
  }
  // Every call settled before a failure is thrown, so none is left to reject unhandled.
  const failed = (await Promise.allSettled(calls)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return total;
}

/**
 * Streams per second of each entry (`{ name, server, events }`) under `connections` concurrent streams:
 * a warm-up each, then two rounds taken in turns (the second in reverse order), so every entry sees the
 * same conditions. `target(entry)` says what each stream requests.
 */
async function streamRounds(entries, target, { connections, warmupMs, streamMs }) {
  for (const e of entries) {
    await concurrentStreams({ ...target(e), connections, durationMs: warmupMs });
    e.streams = 0;
    e.ms = 0;
  }
  for (let round = 0; round < 2; round++) {
    for (const e of round % 2 ? [...entries].reverse() : entries) {
      const r = await concurrentStreams({ ...target(e), connections, durationMs: streamMs / 2 });
      e.streams += r.streams;
      e.ms += r.elapsedMs;
      process.stdout.write(
        `  round ${round + 1}/2 ${e.name}: ${fmt((r.streams * e.events) / (r.elapsedMs / 1000))} events/s\n`,
      );
    }
  }
  return entries.map((e) => ({
    name: e.name,
    pinned: affinity(e.server.pid),
    eventsPerRun: e.events,
    eventsPerSec: (e.streams * e.events) / (e.ms / 1000),
    runsPerSec: e.streams / (e.ms / 1000),
  }));
}

module.exports = {
  send,
  pool,
  paced,
  nowMs,
  percentile,
  timedPost,
  sequentialRuns,
  summarizeRuns,
  concurrentStreams,
  streamRounds,
  cannon,
};
