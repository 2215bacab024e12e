/**
 * Serves a config that uses a tool of your own: the built-in registry plus `order_status`, then the
 * same server `interlude serve` starts.
 *   npx tsc -p examples/tsconfig.json
 *   OPENAI_API_KEY=sk-… node dist/examples/examples/custom-tool/serve.js examples/custom-tool/order-agent.yml
 */
import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../src/config/config.loader';
import { createApp } from '../../src/main';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { orderStatusTool } from './order-status.tool';

async function main(file: string): Promise<void> {
  const registry = builtinRegistry().register(orderStatusTool);
  const config = loadConfig(file, registry);
  const app = await createApp(config);
  const { host, port } = config.settings.general.front_end;
  await app.listen(port, host);
  process.stdout.write(`Serving ${config.file} at ${await app.getUrl()}\n`);
}

main(process.argv[2] ?? 'examples/custom-tool/order-agent.yml').catch((err: unknown) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
