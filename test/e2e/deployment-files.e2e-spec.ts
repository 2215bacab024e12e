import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { trustedProxies } from '../../src/core/http/client-address';
import { ROOT } from '../utils/cli';
import { postJson } from '../utils/sse';
import { configFrom, startApp } from '../utils/test-app';

/**
 * What `docker compose up` relies on, checked without Docker (no image can be pulled here): the
 * services and their healthchecks, the proxy's upstreams, the replicas' config, the image's health.
 */
interface Service {
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  command?: string[];
}

const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const nginx = read('deploy/nginx.conf');
const replicaNames = Object.keys(services).filter((name) => name.startsWith('replica-'));

/** The seconds of a Compose duration (`40s`, `1m30s`). */
function seconds(duration: string): number {
  const parts = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!parts) throw new Error(`not a duration: ${duration}`);
  return Number(parts[1] ?? 0) * 60 + Number(parts[2] ?? 0);
}

/** `${NAME:-default}` / `${NAME:?message}` as Compose would fill them in with an empty environment (but `set`). */
function interpolate(value: string, set: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::[-?]([^}]*))?\}/g, (_m, name: string, fallback: string) => {
    return set[name] ?? fallback;
  });
}

describe('docker-compose.yml: two replicas, PostgreSQL, Redis and a round-robin proxy', () => {
  it('has two replicas, each waiting for a healthy PostgreSQL and Redis, each with a readiness healthcheck', () => {
    expect(replicaNames).toEqual(['replica-a', 'replica-b']);
    for (const name of replicaNames) {
      const replica = services[name];
      expect({ name, depends_on: replica.depends_on }).toEqual({
        name,
        depends_on: { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } },
      });
      expect(replica.healthcheck!.test.join(' ')).toContain('/health/ready');
      expect(Object.keys(replica.environment!)).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'INTERLUDE_TOKEN_KEY', 'INTERLUDE_CONFIG']),
      );
    }
    for (const name of ['postgres', 'redis', 'proxy']) expect(services[name].healthcheck).toBeDefined();
  });

  it('starts the proxy once both replicas are healthy, and the proxy sends requests to exactly those replicas', () => {
    expect(services.proxy.depends_on).toEqual(
      Object.fromEntries(replicaNames.map((name) => [name, { condition: 'service_healthy' }])),
    );
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)\b/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(upstreams).toEqual(replicaNames.map((name) => `${name}:8000`));
    expect(nginx).toMatch(/^\s*proxy_buffering off;/m);
    // An answer that reached a replica is never sent again to the other one.
    expect(nginx).not.toMatch(/proxy_next_upstream[^;]*non_idempotent/);
    expect(nginx).toContain(services.proxy.healthcheck!.test.at(-1)!.replace('http://127.0.0.1:8080', ''));
  });

  it('gives the replicas a config that shares the store, and a stop grace period longer than their shutdown grace', () => {
    const env = services['replica-a'].environment!;
    const file = env.INTERLUDE_CONFIG.replace(/^\/app\//, '');
    const filled = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, interpolate(v, { INTERLUDE_TOKEN_KEY: 'k' })]),
    );
    const config = configFrom(read(file), filled);
    const general = config.settings.general as unknown as Record<string, unknown> & {
      executions: { store: string; redis_url: string };
      db_url: string;
    };
    expect(general.executions.store).toBe('postgres');
    expect(general.executions.redis_url).toBe('redis://redis:6379');
    expect(general.db_url).toBe('postgres://interlude:interlude@postgres:5432/interlude');
    const grace = (general.shutdown_grace_seconds as number | undefined) ?? 0;
    for (const name of replicaNames)
      expect(seconds(services[name].stop_grace_period!)).toBeGreaterThan(grace);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds in one stage and runs in another, as a non-root user, with a HEALTHCHECK on /health/ready', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^COPY --from=build /m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/health\/ready/m);
  });
});

describe('config/replicas.yml behind deploy/nginx.conf', () => {
  const replicas = configFrom(read('config/replicas.yml'), {
    DATABASE_URL: 'postgres://interlude:interlude@postgres:5432/interlude',
    REDIS_URL: 'redis://redis:6379',
  });
  const trust = replicas.settings.general.front_end.trust_proxy;

  it("believes the proxy's X-Forwarded-For from Docker's networks and this machine, not from elsewhere", () => {
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    const trusted = trustedProxies(trust);
    // Where Compose puts the proxy: Docker's default bridge pools (172.17-31.x.x, 192.168.x.x).
    for (const address of ['172.18.0.4', '192.168.48.2', '10.0.3.7', '127.0.0.1']) {
      expect({ address, trusted: trusted(address) }).toEqual({ address, trusted: true });
    }
    expect(trusted('203.0.113.7')).toBe(false);
  });

  it('so per-address limits count each client behind the proxy, not the proxy', async () => {
    const yaml = `general:
  max_anonymous_waiting_executions: 10
  max_waiting_executions_per_address: 1
  front_end:
    trust_proxy: ${JSON.stringify(trust)}
workflow:
  _type: scripted
  steps:
    - prompt: { input_type: text, text: 'Name?', save_as: name }
  output: 'Hi {{name}}'
`;
    const t = await startApp(yaml);
    const start = (client: string) =>
      postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, { 'x-forwarded-for': client });
    try {
      expect((await start('198.51.100.1')).status).toBe(202);
      expect((await start('198.51.100.1')).status).toBe(429);
      expect((await start('198.51.100.2')).status).toBe(202);
    } finally {
      await t.close();
    }
  });
});
