import type { ExecutionRecord } from '../executions/model/execution-record';
import type { ExecutionUrls } from '../http-responders/execution-urls';

/** `GET /executions/{id}`: the status and what goes with it; every body carries `execution_id`. */
export function statusBody(
  record: ExecutionRecord,
  urls: ExecutionUrls,
  /** The face's body for the raw result; the raw result when the face is not known here. */
  renderResult: (raw: unknown) => unknown = (raw) => raw,
): Record<string, unknown> {
  // One object per answer (polls are hot): no base object spread into another.
  const { id, status } = record;
  switch (status) {
    case 'interaction_required': {
      const interactionId = record.openInteractionId ?? '';
      return {
        execution_id: id,
        status,
        interaction_id: interactionId,
        prompt: record.interactions[interactionId]?.prompt,
        response_url: urls.response(id, interactionId),
      };
    }
    case 'oauth_required':
      return { execution_id: id, status, auth_url: record.oauth?.authUrl, oauth_state: record.oauth?.state };
    case 'completed':
      return { execution_id: id, status, result: renderResult(record.result) };
    case 'failed':
      return { execution_id: id, status, error: record.error?.message ?? 'Execution failed' };
    case 'running':
      return { execution_id: id, status };
  }
}
