import { ReplicaServices } from './replica-services';
import { startApp, type TestApp } from './test-app';

/** The `general:` lines that put a server on the shared store of `services` (keys under `prefix`). */
export function sharedStoreYaml(services: ReplicaServices, prefix: string): string {
  return `general:
  db_url: ${JSON.stringify(services.dbUrl)}
  executions:
    store: postgres
    redis_url: ${JSON.stringify(services.redisUrl)}
    redis_key_prefix: ${JSON.stringify(prefix)}
`;
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
export async function startReplicas(count: number, workflowYaml: string): Promise<Replicas> {
  const services = new ReplicaServices();
  const yaml = `${sharedStoreYaml(services, services.newPrefix())}${workflowYaml}`;
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
