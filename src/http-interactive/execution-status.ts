import type { ExecutionRecord } from '../executions/execution-record';
import type { ExecutionUrls } from '../http-executions/execution-urls';

/** `GET /executions/{id}`: the status and what goes with it; every body carries `execution_id`. */
export function statusBody(
  record: ExecutionRecord,
  urls: ExecutionUrls,
  /** The face's body for the raw result; the raw result when the face is not known here. */
  renderResult: (raw: unknown) => unknown = (raw) => raw,
): Record<string, unknown> {
  const base = { execution_id: record.id, status: record.status };
  switch (record.status) {
    case 'interaction_required': {
      const interactionId = record.openInteractionId ?? '';
      return {
        ...base,
        interaction_id: interactionId,
        prompt: record.interactions[interactionId]?.prompt,
        response_url: urls.response(record.id, interactionId),
      };
    }
    case 'oauth_required':
      return { ...base, auth_url: record.oauth?.authUrl, oauth_state: record.oauth?.state };
    case 'completed':
      return { ...base, result: renderResult(record.result) };
    case 'failed':
      return { ...base, error: record.error?.message ?? 'Execution failed' };
    case 'running':
      return base;
  }
}
