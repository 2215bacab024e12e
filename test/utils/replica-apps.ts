import { DurableRuns } from '../../src/executions/durability/durable-runs';
import { ExecutionRunner } from '../../src/executions/engine/execution-runner';
import { ExecutionService } from '../../src/executions/engine/execution.service';
import { ReplicaServices } from './replica-services';
import { startApp, type TestApp } from './test-app';

/** The `general:` lines that put a server on the shared store of `services` (keys under `prefix`). */
export function sharedStoreYaml(
  services: ReplicaServices,
  prefix: string,
  options: ReplicaOptions = {},
): string {
  const lease = options.leaseSeconds === undefined ? '' : `    lease_seconds: ${options.leaseSeconds}\n`;
  const after = options.durableAfterSeconds;
  const durableAfter = after === undefined ? '' : `    durable_after_seconds: ${after}\n`;
  return `general:
  db_url: ${JSON.stringify(services.dbUrl)}
  executions:
    store: postgres
    redis_url: ${JSON.stringify(services.redisUrl)}
    redis_key_prefix: ${JSON.stringify(prefix)}
${lease}${durableAfter}`;
}

export interface ReplicaOptions {
  /** `general.executions.lease_seconds` (durable waits). */
  leaseSeconds?: number;
  /** `general.executions.durable_after_seconds` (when a run that asks nobody is written). */
  durableAfterSeconds?: number;
}

/**
 * Makes a replica behave as if its process were killed (durable waits): it stops renewing its lease
 * and claiming, and its runs stop where they are, with nothing written (no record, no release). Its
 * HTTP server stays up until `close`, which then writes nothing either; do not send it requests.
 */
export function crash(app: TestApp): void {
  app.app.get(DurableRuns).stop();
  // What the engine does when its lease runs out: its durable runs stop, recording nothing.
  app.app.get(ExecutionRunner).abandon();
  // A killed process runs no shutdown hook: `close` then records no end and releases no claim.
  const engine = app.app.get(ExecutionService);
  engine.beforeApplicationShutdown = () => Promise.resolve();
  engine.onApplicationShutdown = () => undefined;
}

/**
 * What a replica does when told to stop, before its port closes: it hands its durable runs over. Its
 * HTTP server stays up, as a real one does while requests in flight finish.
 */
export function handOver(app: TestApp): Promise<void> {
  return app.app.get(ExecutionService).beforeApplicationShutdown();
}

/** The replica id a server's durable runs are claimed under. */
export function replicaOf(app: TestApp): string {
  return app.app.get(DurableRuns).replica;
}

export interface Replicas {
  apps: TestApp[];
  services: ReplicaServices;
  close(): Promise<void>;
}

/**
 * `count` whole servers in this process, each with its own Nest app, pools and connections, sharing
 * one Postgres schema and one Redis key prefix: replicas behind a load balancer, as far as they can tell.
 * `workflowYaml` is the config after `general:` (the workflow and the rest).
 */
export async function startReplicas(
  count: number,
  workflowYaml: string,
  options: ReplicaOptions = {},
): Promise<Replicas> {
  const services = new ReplicaServices();
  const yaml = `${sharedStoreYaml(services, services.newPrefix(), options)}${workflowYaml}`;
  const apps: TestApp[] = [];
  // One after the other: the first migrates the schema.
  for (let i = 0; i < count; i++) apps.push(await startApp(yaml));
  return {
    apps,
    services,
    close: async () => {
      await Promise.all(apps.map((a) => a.close()));
      await services.cleanup();
    },
  };
}
