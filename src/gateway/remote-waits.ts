import type { ExecutionRecord } from '../executions/model/execution-record';
import { DEFAULT_PROMPT_ERROR, PROMPT_GRACE_SECONDS } from '../runtime/prompts';

/** A prompt (or OAuth consent) a run waits on, as the shared record has it. */
export interface RecordedWait {
  kind: 'prompt' | 'oauth';
  /** The interaction id (or the OAuth state): the id of its `system_interaction_message`. */
  id: string;
  content: Record<string, unknown>;
  askedAt: number;
}

/** What the replica taking over a run knows from the shared store. */
export interface RemoteRun {
  /** The last event the previous connection (on another replica) was shown. */
  delivered: number;
  /** When each prompt open at takeover was asked (its record's deadline less its timeout). */
  askedAt: (interactionId: string) => number | undefined;
  /** The waits the record says are open: the run has caught up once it has seen them. */
  open: string[];
  /**
   * The same waits from the record: shown when the shared log does not bring them (a replica that was
   * killed can show an event on its own connection before its append to the shared log lands).
   */
  waits: RecordedWait[];
}

/** NAT's OAuth consent prompt: the authorization URL as `text`; `/auth/redirect` completes it. */
export function oauthConsent(authUrl: string): Record<string, unknown> {
  return { input_type: 'oauth_consent', timeout: null, error: DEFAULT_PROMPT_ERROR, text: authUrl };
}

/** What a connection taking over `record`'s run from another replica starts from. */
export function remoteRunOf(record: ExecutionRecord, delivered: number): RemoteRun {
  const askedAt = askedAtOf(record);
  const waits: RecordedWait[] = Object.entries(record.interactions)
    .filter(
      ([, i]) => i.status === 'open' && (i.prompt as { input_type?: string }).input_type !== 'notification',
    )
    .map(([id, i]) => ({
      kind: 'prompt',
      id,
      content: i.prompt as unknown as Record<string, unknown>,
      askedAt: askedAt(id) ?? Date.now(),
    }));
  if (record.status === 'oauth_required' && record.oauth) {
    const { state, authUrl } = record.oauth;
    waits.push({ kind: 'oauth', id: state, content: oauthConsent(authUrl), askedAt: Date.now() });
  }
  return { delivered, askedAt, open: waits.map((w) => w.id), waits };
}

/** When each open prompt was asked: its deadline less its timeout (and the grace the engine adds). */
function askedAtOf(record: ExecutionRecord): (id: string) => number | undefined {
  return (id) => {
    const interaction = record.interactions[id];
    const timeout = (interaction?.prompt as { timeout?: unknown } | undefined)?.timeout;
    if (!interaction || interaction.deadline === null || typeof timeout !== 'number') return undefined;
    return interaction.deadline - (timeout + PROMPT_GRACE_SECONDS) * 1000;
  };
}
