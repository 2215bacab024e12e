/** What a client needs to let a person authorize: shown by status polls while the flow is pending. */
export interface OAuthWait {
  authUrl: string;
  state: string;
  provider: string;
}

/** The waits an OAuth flow opens and closes, handed to the engine that records them. */
export type OAuthFlowWait = { kind: 'oauth_pending'; oauth: OAuthWait } | { kind: 'oauth_resolved' };
