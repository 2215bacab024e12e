import { OutboundError, OutboundPolicy } from '../../core/outbound/outbound-policy';
import { redactUrl } from '../../core/outbound/redact-url';
import { policyFetch } from '../mcp/policy-fetch';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The `fetch` of a model that must pass `general.outbound` (one an evaluation file declares): each
 * connection goes to the address the policy checked when it was made (after DNS, so a name that
 * rebinds to a private address is refused), and a redirect is refused, not followed. The model's own
 * `timeout_seconds` bounds the wait for its answer, not the policy's.
 */
export function policyLlmFetch(policy: OutboundPolicy, timeoutSeconds: number): typeof fetch {
  const send = policyFetch(new OutboundPolicy({ ...policy.settings, timeout_seconds: timeoutSeconds }));
  return async (input, init) => {
    const response = await send(input, init);
    if (!REDIRECTS.has(response.status)) return response;
    await response.body?.cancel();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const location = response.headers.get('location');
    const to = location ? ` to ${redactUrl(new URL(location, url))}` : '';
    throw new OutboundError(
      `answered ${response.status}, a redirect${to}: a model's redirects are not followed`,
    );
  };
}
