import type { APIError } from 'openai';
import { redactUrl, redactUrlsIn } from '../../core/outbound/redact-url';

/** Where a failed call went, for a message a person can act on. */
export interface LlmTarget {
  name: string;
  model: string;
  endpoint: string;
  timeoutSeconds: number;
  maxRetries: number;
  hasApiKey: boolean;
  keyVariable: string;
  /** The API key itself: an upstream message that repeats it (a gateway might) is not repeated with it. */
  apiKey?: string;
}

/** A model call that failed: the message names the LLM, the model, the endpoint and what answered. */
export class LlmError extends Error {
  constructor(message: string) {
    // Library and upstream messages may quote the URL called, query string and userinfo included.
    super(redactUrlsIn(message));
    this.name = 'LLMError';
  }
}

const RETRIED = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

function upstreamMessage(err: APIError): string {
  const error = err.error as { message?: unknown } | undefined;
  if (typeof error?.message === 'string') return error.message;
  return err.message.replace(/^\d{3}\s*/, '') || 'no details';
}

/** The innermost cause (`fetch failed` says less than `connect ECONNREFUSED 127.0.0.1:9`). */
function rootCause(err: Error): Error {
  let found = err;
  while (typeof found.cause === 'object' && typeof (found.cause as Error | null)?.message === 'string') {
    found = found.cause as Error;
  }
  return found;
}

/**
 * The SDK's error as an LlmError. A cancelled run's abort is passed through as it is; the call's own
 * deadline (`timeout`, aborted when `timeout_seconds` ran out) makes a time-out.
 */
export function llmError(err: unknown, target: LlmTarget, run: AbortSignal, timeout: AbortSignal): unknown {
  if (run.aborted) return run.reason;
  const failure = failureOf(err, target, timeout);
  const key = target.apiKey;
  // Short values (a local server's "x") would blank out ordinary words.
  return key && key.length >= 8 ? new LlmError(failure.split(key).join('***')) : new LlmError(failure);
}

function failureOf(err: unknown, target: LlmTarget, timeout: AbortSignal): string {
  // Callers, anonymous ones too, read this: a key in the URL's query or userinfo must not reach them.
  const who = `LLM "${target.name}" (model "${target.model}" at ${redactUrl(target.endpoint)})`;
  if (timeout.aborted) {
    return `${who} did not answer within ${target.timeoutSeconds}s (timeout_seconds)`;
  }
  // The SDK is loaded by then: only its client (LlmClient) raises these.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { APIConnectionError, APIError } = require('openai') as typeof import('openai');
  if (err instanceof APIConnectionError) {
    return `${who} could not be reached: ${rootCause(err).message}`;
  }
  if (err instanceof APIError && err.status !== undefined) {
    const n = target.maxRetries;
    const retried = RETRIED(err.status) && n > 0 ? ` after ${n} ${n === 1 ? 'retry' : 'retries'}` : '';
    const hint =
      err.status === 401 && !target.hasApiKey
        ? ` (no API key is configured: set ${target.keyVariable} or api_key)`
        : '';
    return `${who} answered HTTP ${err.status}${retried}: ${upstreamMessage(err)}${hint}`;
  }
  return `${who} failed: ${(err as Error)?.message ?? String(err)}`;
}
