import type { ExecutionUrls } from '../http-responders/execution-urls';
import type { ExecutionEvent, TerminalEvent } from '../runtime/execution-event';
import type { Prompt } from '../runtime/prompts';
import { jobOutput } from './job-output';
import type { JobPause, JobStatus } from './job-record';

/** What a job's row records when its run ends. */
export interface JobEnd {
  status: JobStatus;
  output?: unknown;
  error?: string | null;
  outputPath?: string;
}

export const CANCELLED: JobEnd = { status: 'interrupted', error: 'cancelled' };

export function endOf(terminal: TerminalEvent): JobEnd {
  switch (terminal.kind) {
    case 'completed':
      return { status: 'success', output: jobOutput(terminal.result) };
    case 'failed':
      return { status: 'failure', error: terminal.error.message };
    case 'cancelled':
      return CANCELLED;
  }
}

/** The pause an event starts (or null when it ends one); undefined for other events. */
export function pauseOf(
  executionId: string,
  event: ExecutionEvent,
  urls: ExecutionUrls,
): JobPause | null | undefined {
  switch (event.kind) {
    case 'interaction_required':
      if ((event.prompt as Prompt).input_type === 'notification') return undefined;
      return {
        status: 'interaction_required',
        execution_id: executionId,
        interaction_id: event.interactionId,
        prompt: event.prompt,
        response_url: urls.response(executionId, event.interactionId),
      };
    case 'oauth_required':
      return {
        status: 'oauth_required',
        execution_id: executionId,
        auth_url: event.authUrl,
        oauth_state: event.state,
      };
    case 'interaction_resolved':
    case 'oauth_resolved':
      return null;
    default:
      return undefined;
  }
}
