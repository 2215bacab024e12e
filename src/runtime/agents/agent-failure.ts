import { Logger } from '@nestjs/common';
import { internalErrorMessage, isExposed } from '../../core/errors/app-error';
import { redactUrlsIn } from '../../core/outbound/redact-url';
import type { WorkflowContext } from '../workflow-context';

const logger = new Logger('Agent');

/**
 * What an agent that answers with its failure instead of raising it (NAT's router_agent, a verbose
 * responses_api_agent) says of it: the message of an error meant for callers (see isExposed), a URL
 * with a key in it never shown; else the internal-error message naming the trace, the detail (an LLM
 * endpoint and what it answered) going to the log as a failed run's does.
 */
export function failureAnswer(err: unknown, agent: string, ctx: WorkflowContext): string {
  if (isExposed(err)) return redactUrlsIn((err as Error).message ?? String(err));
  const { traceId } = ctx.trace;
  const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  logger.error(`Agent "${agent}" failed (trace ${traceId}): ${redactUrlsIn(detail)}`);
  return internalErrorMessage(traceId);
}
