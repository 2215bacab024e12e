'use strict';
/**
 * The MCP server row of `npm run bench` (`--only mcp`): calls per second of the echo workflow as an
 * MCP tool (`tools/call` through the SDK's Client and Streamable HTTP transport, one session per
 * client) against the same workflow through `POST /v1/workflow` (fetch), on the same server, with
 * the same number of clients calling back to back, in rounds taken in turns.
 */
const { startServer } = require('./lib/servers');
const { JSON_RESPONSE } = require('./lib/shared');
const { fmt, table } = require('./lib/report');

const HEADING = '## MCP server';
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function settings(quick) {
  return { clients: 10, warmupMs: quick ? 500 : 2000, roundMs: quick ? 2000 : 8000, rounds: 2 };
}

function percentile(sorted, q) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** `clients` loops calling `once` back to back for `ms`: calls/s, latencies, the server's CPU per call. */
async function load(server, callers, ms) {
  const latencies = [];
  const cpuBefore = await server.cpuMicros();
  const end = nowMs() + ms;
  const started = nowMs();
  await Promise.all(
    callers.map(async (once) => {
      while (nowMs() < end) {
        const t0 = nowMs();
        await once();
        latencies.push(nowMs() - t0);
      }
    }),
  );
  const elapsed = nowMs() - started;
  const cpu = (await server.cpuMicros()) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, elapsed, cpu, latencies };
}

function merge(rounds) {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const calls = rounds.reduce((s, r) => s + r.calls, 0);
  const elapsed = rounds.reduce((s, r) => s + r.elapsed, 0);
  const cpu = rounds.reduce((s, r) => s + r.cpu, 0);
  return {
    callsPerSec: (calls / elapsed) * 1000,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuPerCall: cpu / calls,
    calls,
  };
}

async function measureMcp({ quick = false } = {}) {
  const S = settings(quick);
  // The SDK is ESM-first; its CommonJS build is what `require` finds.
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const server = await startServer('interlude', 'echo');
  const base = `http://127.0.0.1:${server.port}`;
  const clients = [];
  try {
    for (let i = 0; i < S.clients; i++) {
      const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      clients.push(client);
    }
    const { tools } = await clients[0].listTools();
    if (!tools.some((t) => t.name === 'echo')) throw new Error('the echo tool is not listed over MCP');
    const mcpCall = (client) => async () => {
      const result = await client.callTool({ name: 'echo', arguments: { message: 'hello world' } });
      if (result.isError || result.content[0]?.text !== 'hello world')
        throw new Error(`tools/call answered ${JSON.stringify(result)}`);
    };
    const httpCall = async () => {
      // fetch, as the SDK's client transport uses: the two faces differ only in their protocol.
      const res = await globalThis.fetch(`${base}/v1/workflow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello world' }),
      });
      const body = await res.text();
      if (res.status !== 200 || body !== JSON_RESPONSE)
        throw new Error(`/v1/workflow answered ${res.status} ${body}`);
    };
    const mcpCallers = clients.map(mcpCall);
    const httpCallers = clients.map(() => httpCall);
    await load(server, mcpCallers, S.warmupMs);
    await load(server, httpCallers, S.warmupMs);
    const mcp = [];
    const http = [];
    for (let round = 0; round < S.rounds; round++) {
      mcp.push(await load(server, mcpCallers, S.roundMs));
      http.push(await load(server, httpCallers, S.roundMs));
    }
    return { settings: S, mcp: merge(mcp), http: merge(http) };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await server.stop();
  }
}

function mcpSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const row = (label, m) => [
    label,
    fmt(m.callsPerSec),
    fmt(m.p50, 2),
    fmt(m.p99, 2),
    fmt(m.cpuPerCall),
    `${fmt(m.callsPerSec / r.http.callsPerSec, 2)}×`,
  ];
  const results = table(
    ['Echo workflow through', 'calls/s', 'p50 ms', 'p99 ms', 'server CPU µs/call', 'vs /v1/workflow'],
    [row('MCP tools/call (SDK Client, Streamable HTTP)', r.mcp), row('POST /v1/workflow (fetch)', r.http)],
  );
  const targets = [
    [
      'tools/call at least half the calls/s of /v1/workflow',
      `${fmt(r.mcp.callsPerSec / r.http.callsPerSec, 2)}×`,
      r.mcp.callsPerSec >= 0.5 * r.http.callsPerSec,
    ],
  ];
  const text = `${HEADING}

- Command: \`npm run bench\` (alone: \`node bench/run.js --only mcp\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}; machine: ${env.cpu}, ${env.cores} cores, load average at start ${env.load}; Node ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'}
- One server (echo workflow); ${S.clients} clients calling back to back: for MCP each its own session (initialize
  once, then \`tools/call\` of \`echo\`, answered on an SSE stream), for HTTP \`POST /v1/workflow\` over keep-alive
  fetch. ${S.roundMs / 1000} s per face in ${S.rounds} rounds taken in turns, after a warm-up of each.

${results}

| Target | Measured | Met |
|---|---|---|
${targets.map((t) => `| ${t[0]} | ${t[1]} | ${t[2] ? 'yes' : 'no'} |`).join('\n')}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

module.exports = { measureMcp, mcpSection, HEADING };
