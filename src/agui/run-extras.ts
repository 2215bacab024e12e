import type { Execution } from '../executions/model/execution';
import type { RunInput } from './run-input';

/**
 * What the AG-UI face hands a workflow beside its input, as `ctx.request.extras.agui`: the run's
 * `state`, `forwardedProps`, `context` and the client's `tools`. A run that waits for a person holds
 * none of it (it can be large, and a client holds many waiting runs): the client sends them again with
 * its resume, which hands the execution those instead.
 */
export class RunExtras {
  /** The object each live execution of this process was handed, by execution. */
  private readonly handed = new Map<string, Record<string, unknown>>();

  /** The extras of `input`, handed to `execution` until it waits or ends. */
  hand(execution: Execution, extras: Record<string, unknown>): void {
    this.handed.set(execution.id, extras);
    void execution.done.then(() => this.handed.delete(execution.id));
  }

  /** A resume of `executionId` (on this process): the workflow goes on with the resume's extras. */
  renew(executionId: string, input: RunInput): void {
    const held = this.handed.get(executionId);
    if (held) Object.assign(held, extrasOf(input));
  }

  /** The execution waits for a person: it lets go of what it was handed. */
  drop(executionId: string | undefined): void {
    const held = executionId === undefined ? undefined : this.handed.get(executionId);
    if (held) for (const key of Object.keys(held)) delete held[key];
  }
}

export function extrasOf(input: RunInput): Record<string, unknown> {
  const extras: Record<string, unknown> = { context: input.context, tools: input.tools };
  if (input.state !== undefined) extras.state = input.state;
  if (input.forwardedProps !== undefined) extras.forwardedProps = input.forwardedProps;
  return extras;
}
