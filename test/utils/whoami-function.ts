import { registryWith } from './test-function';

/** A test workflow that answers with what it was told of its caller: `ctx.identity`. */
export function whoamiRegistry() {
  return registryWith('whoami', async (_input, ctx) => ({ identity: ctx.identity }));
}
