/** Why `ctx.authenticate` failed: an unknown provider, a refused or failed consent, a timeout. */
export class OAuthFlowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}
