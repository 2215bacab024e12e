/**
 * One mount of the chat routes (`/v1/chat`, legacy `/chat`, `/v1/chat/completions`), provided by the
 * mount to the controller it serves.
 */
export class ChatRoute {
  constructor(
    /** Interactive routes answer 202 and send prompts as typed events; the others fail when asked. */
    readonly interactive: boolean,
    /** The interactive chat route (`openai_api_path`), named when a workflow asks elsewhere. */
    readonly interactiveBase: string | null,
  ) {}

  /** The route a workflow that asks here should have been called at, for `suffix`. */
  interactiveRoute(suffix: string): string | undefined {
    return this.interactiveBase === null ? undefined : `${this.interactiveBase}${suffix}`;
  }
}
