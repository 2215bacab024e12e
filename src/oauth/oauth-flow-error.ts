/** Why `ctx.authenticate` failed: an unknown provider, a refused or failed consent, a timeout. */
export class OAuthFlowError extends Error {
  /** Said to the user who was asked to consent (see isExposed). */
  readonly expose = true;

  constructor(message: string) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}
