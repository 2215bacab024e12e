import { eventually, scriptedYaml } from './test-app';
import { WAIT_MS } from './timing';

export interface JsonResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** Any request with an optional JSON body; the answer's JSON (if any) parsed. */
export async function call(method: string, url: string, body?: unknown): Promise<JsonResponse> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // 204 and other empty bodies
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** What a 202 body and an `interaction_required` status carry. */
export interface Pause {
  execution_id: string;
  status: string;
  interaction_id: string;
  prompt: Record<string, unknown>;
  response_url: string;
  status_url?: string;
}

/** A client of one running test server's execution routes. */
export class Executions {
  constructor(private readonly base: string) {}

  status(id: string): Promise<JsonResponse> {
    return call('GET', `${this.base}/executions/${id}`);
  }

  cancel(id: string): Promise<JsonResponse> {
    return call('DELETE', `${this.base}/executions/${id}`);
  }

  /** POSTs `{"response": response}` to a response_url (as the server gave it: a path). */
  answer(responseUrl: string, response: unknown): Promise<JsonResponse> {
    return call('POST', `${this.base}${responseUrl}`, { response });
  }

  /** Polls until the execution waits on an interaction other than `previous`. */
  nextPause(id: string, previous?: string, timeoutMs = WAIT_MS): Promise<Pause> {
    return eventually(async () => {
      const { status, json } = await this.status(id);
      expect(status).toBe(200);
      expect(json.status).toBe('interaction_required');
      expect(json.interaction_id).not.toBe(previous);
      return json as unknown as Pause;
    }, timeoutMs);
  }

  /** Polls until the execution has ended (completed or failed) and returns its status body. */
  ended(id: string, timeoutMs = WAIT_MS): Promise<Record<string, unknown>> {
    return eventually(async () => {
      const { json } = await this.status(id);
      expect(['completed', 'failed']).toContain(json.status);
      return json;
    }, timeoutMs);
  }
}

/** An `interaction_required` answer is 400 with exactly this body. */
export function alreadyResolved(interactionId: string) {
  return { detail: `Interaction ${interactionId} has already been resolved` };
}

export const DEFAULT_PROMPT_ERROR = 'This prompt is no longer available.';

/** One text prompt, then the output quoting the answer. */
export const NAME_STEPS = `- prompt: { input_type: text, text: 'Your name?', placeholder: 'A name', save_as: name }`;
export const NAME_YAML = scriptedYaml(NAME_STEPS, 'Hello {{name}} ({{input}})');
