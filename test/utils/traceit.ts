import { Logger } from '@nestjs/common';
import type { ObservabilityTrace } from '../../src/core/tracing/observability-trace';
import { registryWith } from './test-function';

/** What the test workflow saw of its run. */
export interface Seen {
  trace: ObservabilityTrace;
  executionId: string;
  userId: string | null;
}

/** A workflow that runs one tool step, logs through Nest's Logger and answers with `ctx.trace`. */
export function traceitRegistry() {
  return registryWith('traceit', async (_input, ctx) => {
    await ctx.step('lookup', 'tool', async () => 42);
    new Logger('traceit').log('looked it up');
    const seen: Seen = { trace: ctx.trace, executionId: ctx.executionId, userId: ctx.identity.userId };
    return seen;
  });
}

export const TRACEIT = 'workflow:\n  _type: traceit\n';

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

export const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

export const HEX32 = /^[0-9a-f]{32}$/;

export const traceOf = (res: { headers: Headers }) => res.headers.get('observability-trace-id');
