import type { ExecutionEvent } from '../runtime/execution-event';
import type { Execution } from '../executions/model/execution';
import type { Prompt } from '../runtime/prompts';
import type { StepAdaptor } from '../runtime/step-adaptor';
import { oauthConsent, type RecordedWait, type RemoteRun } from './remote-waits';
import type { ReplyMessages, SchemaType, ServerMessage } from './ws-messages';
import { WsRunRenderer } from './ws-run-renderer';

/** Where a run's messages go: the connection it is attached to. */
export interface RunListener {
  send(message: ServerMessage): void;
  /** This replica stops and hands the run to another: the client reconnects there (`?conversation_id=`). */
  handedOver?(): void;
}

/** A prompt (or OAuth consent) the run is waiting on, and the seq of its event. */
interface Pending extends RecordedWait {
  seq: number;
}

export interface WsRunInit {
  execution: Execution;
  ownerId: string | null;
  schema: SchemaType;
  messages: ReplyMessages;
  adaptor: StepAdaptor;
  /** Called once a connection was shown a prompt (the seq of its event). */
  onPrompt?: (seq: number) => void;
  /** A run another replica runs, taken over here (its events are read from the shared log). */
  remote?: RemoteRun;
}

/** How long a takeover waits for the shared log to replay what the record says is waiting. */
const CATCH_UP_MS = 3000;

/**
 * One workflow run started from a `user_message`, rendered as NAT's WebSocket messages. It listens to
 * its execution for its whole life; while no connection is attached (the socket dropped) nothing is
 * sent, and the connection that takes it over gets what it missed and the prompt still waiting.
 */
export class WsRun {
  readonly execution: Execution;
  readonly ownerId: string | null;
  readonly messages: ReplyMessages;
  readonly schema: SchemaType;
  private readonly renderer: WsRunRenderer;
  private readonly onPrompt?: (seq: number) => void;
  private readonly remote?: RemoteRun;
  /** When the current connection was attached: a prompt asked before it is sent with the time left. */
  private attachedAt = 0;
  /** The last event this run has tracked. */
  private tracked = 0;
  /** Remote: prompts up to this seq are sent again once the log has been replayed that far. */
  private resendUpTo?: number;
  private caughtUpNow!: () => void;
  /** Remote: set once caught up, or once the log was given up on (it may never get that far). */
  private replayDone = false;
  private endNow!: () => void;
  /** Resolves once the run's end was tracked (and shown, to a connection attached by then). */
  readonly finished = new Promise<void>((resolve) => (this.endNow = resolve));
  /** Remote: resolves once the shared log has been replayed up to where the takeover found the run. */
  readonly caughtUp: Promise<void>;
  private listener: RunListener | null = null;
  /** The last event rendered to a connection. */
  private delivered = 0;
  private readonly pending = new Map<string, Pending>();
  /** Remote: events trimmed from the shared log that no connection was told of yet. */
  private droppedUnshown = 0;
  /** Remote: prompts seen answered while replaying. */
  private readonly closedIds = new Set<string>();
  private ended = false;
  private readonly stopListening: () => void;
  private readonly stopWatchingHandover?: () => void;

  constructor(init: WsRunInit) {
    this.execution = init.execution;
    this.ownerId = init.ownerId;
    this.messages = init.messages;
    this.schema = init.schema;
    this.renderer = new WsRunRenderer(init.schema, init.adaptor, init.messages, init.execution);
    this.onPrompt = init.onPrompt;
    this.remote = init.remote;
    let timer: NodeJS.Timeout | undefined;
    this.caughtUp = new Promise<void>((resolve) => {
      this.caughtUpNow = () => {
        clearTimeout(timer);
        this.replayDone = true;
        this.seedFromRecord();
        resolve();
      };
      if (!init.remote) return resolve();
      timer = setTimeout(this.caughtUpNow, CATCH_UP_MS);
      timer.unref();
    });
    if (init.remote) {
      this.delivered = init.remote.delivered;
      this.checkCaughtUp();
    }
    this.stopListening = this.execution.events.subscribe((event) => this.track(event));
    this.stopWatchingHandover = this.execution.onHandover?.(() => {
      if (!this.ended) this.listener?.handedOver?.();
    });
  }

  get conversationId(): string | null {
    return this.messages.conversationId;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The last event a connection was shown. */
  get shown(): number {
    return this.delivered;
  }

  /** When a connection was last attached (epoch ms; 0: none yet). */
  get lastAttached(): number {
    return this.attachedAt;
  }

  /** The connection the run is shown on, if any. */
  get holder(): RunListener | null {
    return this.listener;
  }

  /** The content of a waiting prompt's message (the prompt itself). */
  promptOf(interactionId: string): unknown {
    return this.pending.get(interactionId)?.content;
  }

  /** The prompts waiting for a reply (not OAuth consents, which `/auth/redirect` completes). */
  waitingPrompts(): string[] {
    return [...this.pending.values()].filter((p) => p.kind === 'prompt').map((p) => p.id);
  }

  /**
   * Sends the run's messages to `listener` from now on: first the events it has not seen, then any
   * prompt still waiting that an earlier connection was shown, with the time it has left.
   */
  attach(listener: RunListener): RunListener | null {
    const previous = this.listener;
    this.listener = listener;
    this.attachedAt = Date.now();
    const missedFrom = this.delivered;
    if (this.remote) {
      // The shared log is read asynchronously: the run's own listener renders what comes after
      // `missedFrom` as it arrives, and the prompts before it are sent again once it got that far.
      this.resendUpTo = missedFrom;
      if (this.droppedUnshown > 0) this.renderer.dropped(listener, this.droppedUnshown);
      this.droppedUnshown = 0;
      this.resend();
      for (const pending of this.pending.values()) {
        if (pending.seq === Number.POSITIVE_INFINITY) listener.send(this.ask(pending, true));
      }
      return previous;
    }
    // Subscribing replays the missed events at once; the run's own listener renders the rest.
    this.execution.events.subscribe((event) => this.render(event, true), missedFrom)();
    for (const pending of this.pending.values()) {
      if (pending.seq <= missedFrom) listener.send(this.ask(pending, true));
    }
    return previous;
  }

  /** Stops sending; the run goes on. */
  detach(): void {
    this.listener = null;
  }

  /** Detaches and stops listening for good (the run was replaced or is over). */
  dispose(): void {
    this.listener = null;
    this.stopListening();
    this.stopWatchingHandover?.();
  }

  private track(event: ExecutionEvent): void {
    switch (event.kind) {
      case 'step':
        // Every step the log holds, shown or not: the run's token usage is all its model calls'.
        this.renderer.countUsage(event.step);
        break;
      case 'interaction_required': {
        const prompt = event.prompt as Prompt;
        // Notifications are shown, never waited on.
        if (prompt.input_type !== 'notification') {
          this.remember('prompt', event.interactionId, prompt as unknown as Record<string, unknown>, event);
        }
        break;
      }
      case 'oauth_required':
        this.remember('oauth', event.state, oauthConsent(event.authUrl), event);
        break;
      case 'interaction_resolved':
        this.pending.delete(event.interactionId);
        if (this.remote) this.closedIds.add(event.interactionId);
        break;
      case 'oauth_resolved':
        this.pending.delete(event.state);
        if (this.remote) this.closedIds.add(event.state);
        break;
      case 'completed':
      case 'failed':
      case 'cancelled':
        this.ended = true;
        break;
      case 'events_dropped':
        // Remote: the shared log was trimmed past what the last connection was shown, before this one came.
        if (this.remote && !this.listener && event.seq > this.delivered) {
          this.droppedUnshown += Math.min(event.count, event.seq - this.delivered);
        }
        break;
      default:
        break;
    }
    this.tracked = Math.max(this.tracked, event.seq);
    if (this.listener) this.render(event, false);
    if (this.remote) {
      this.resend();
      this.checkCaughtUp();
    }
    if (this.ended) this.endNow();
  }

  /**
   * Remote: sends the prompts the last connection was shown again, once the log is replayed that far,
   * or at once when it was given up on (a log lost with a Redis restarted empty never gets there; an
   * event of it that comes later is at or before what was shown, so not shown twice).
   */
  private resend(): void {
    const upTo = this.resendUpTo;
    const listener = this.listener;
    if (upTo === undefined || !listener || (this.tracked < upTo && !this.replayDone)) return;
    this.resendUpTo = undefined;
    for (const pending of this.pending.values()) {
      if (pending.seq <= upTo) listener.send(this.ask(pending, true));
    }
  }

  /** Remote: the waits the record has and the shared log did not bring; sent on attach (seq: never). */
  private seedFromRecord(): void {
    for (const wait of this.remote?.waits ?? []) {
      if (this.pending.has(wait.id) || this.closedIds.has(wait.id)) continue;
      this.pending.set(wait.id, { ...wait, seq: Number.POSITIVE_INFINITY });
    }
  }

  private checkCaughtUp(): void {
    const remote = this.remote!;
    if (this.tracked < remote.delivered) return;
    if (remote.open.every((id) => this.pending.has(id) || this.closedIds.has(id))) this.caughtUpNow();
  }

  private remember(
    kind: Pending['kind'],
    id: string,
    content: Record<string, unknown>,
    event: ExecutionEvent,
  ) {
    const askedAt = this.remote?.askedAt(id) ?? Date.now();
    this.pending.set(id, { kind, id, content, seq: event.seq, askedAt });
  }

  /** The interaction message for a pending prompt; sent again, its timeout is what is left of it. */
  private ask(pending: Pending, again: boolean): ServerMessage {
    const timeout = pending.content.timeout;
    if (!again || typeof timeout !== 'number') return this.messages.interaction(pending.id, pending.content);
    const left = Math.max(0, Math.round(timeout - (Date.now() - pending.askedAt) / 1000));
    return this.messages.interaction(pending.id, { ...pending.content, timeout: left });
  }

  private render(event: ExecutionEvent, missed: boolean): void {
    const listener = this.listener;
    if (!listener || event.seq <= this.delivered) return;
    if (event.kind === 'events_dropped') {
      // Not counted as shown: the prompts kept aside from among the dropped events come next. A shared
      // log counts from where its reader started, which may be before what was shown.
      return this.renderer.dropped(listener, Math.min(event.count, event.seq - this.delivered));
    }
    this.delivered = event.seq;
    if (event.kind !== 'interaction_required' && event.kind !== 'oauth_required') {
      return this.renderer.render(listener, event);
    }
    const id = event.kind === 'oauth_required' ? event.state : event.interactionId;
    const pending = this.pending.get(id);
    // Remote: a prompt asked before this connection came (on another replica) has less time left.
    const again =
      missed || (this.remote !== undefined && pending !== undefined && pending.askedAt < this.attachedAt);
    if (pending) listener.send(this.ask(pending, again));
    else if (event.kind === 'interaction_required')
      listener.send(this.messages.interaction(id, event.prompt));
    if (pending) this.onPrompt?.(event.seq);
  }
}
