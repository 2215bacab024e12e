import type { CallToolResult, ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';

/** An OAuth consent the workflow waits for (the engine's `oauth_required` event). */
export interface Consent {
  authUrl: string;
  state: string;
  provider: string;
}

/**
 * The URL-mode `elicitation/create` (MCP 2025-11-25) of a consent: the client opens the start link in
 * the person's browser, which signs in at the provider out of band. The flow's state is the
 * elicitation id: `notifications/elicitation/complete` names it once the person has consented.
 */
export function consentElicitation(consent: Consent): ElicitRequestURLParams {
  return {
    mode: 'url',
    elicitationId: consent.state,
    url: consent.authUrl,
    message: `The workflow needs your consent at ${consent.provider}: sign in there so it can go on.`,
  };
}

/**
 * A client that cannot open a link for the person (no `elicitation.url`): the call ends with the
 * start link, and the execution waits for the consent and goes on once it is given.
 */
export function consentHandOff(consent: Consent, executionId: string, statusUrl: string): CallToolResult {
  const text =
    `The workflow needs your consent at ${consent.provider}. This MCP client declared no URL ` +
    `elicitation capability, so it cannot open the link for you: open ${consent.authUrl} in a ` +
    `browser and sign in, then follow the execution at ${statusUrl}.`;
  return {
    isError: true,
    content: [{ type: 'text', text }],
    structuredContent: {
      execution_id: executionId,
      status: 'oauth_required',
      provider: consent.provider,
      auth_url: consent.authUrl,
      status_url: statusUrl,
    },
  };
}
