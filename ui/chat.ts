import { tokenUsageOf, type Conversation, type ConversationStore, type Turn } from './conversations';
import { on } from './dom';
import { emptyState, type PageInfo } from './empty-state';
import { ChatSocket, type ServerMessage } from './socket';
import { thumbnails, userContent, type Attachment, type Attachments } from './attachments';
import { TurnPrompts } from './turn-prompts';
import { TurnView } from './turn-view';

export interface ChatElements {
  log: HTMLElement;
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
  stop: HTMLButtonElement;
  connection: HTMLElement;
  announce(text: string): void;
  /** The conversation list changed (a title, a new conversation). */
  listChanged(): void;
}

/**
 * The chat over the WebSocket face: one socket per open conversation, each server message routed to
 * the turn it answers (`parent_id`), prompts shown as forms, stop/retry/copy on the turns.
 */
export class Chat {
  private conversation!: Conversation;
  private socket: ChatSocket | null = null;
  private readonly views = new Map<string, TurnView>();
  private readonly prompts: TurnPrompts;
  /** Counts calls of open(): a conversation that loads after another was chosen is dropped. */
  private opening = 0;

  constructor(
    private readonly store: ConversationStore,
    private readonly ui: ChatElements,
    private readonly websocketPath: string | null,
    private readonly page: PageInfo,
    private readonly attachments: Attachments,
  ) {
    this.prompts = new TurnPrompts({
      title: page.title,
      input: ui.input,
      announce: (text) => ui.announce(text),
      answer: (promptId, content) =>
        this.socket?.send({
          type: 'user_interaction_message',
          id: crypto.randomUUID(),
          thread_id: 'default',
          parent_id: promptId,
          conversation_id: this.conversation.id,
          content,
        }),
    });
    on(ui.form, 'submit', (event) => {
      event.preventDefault();
      this.ask(ui.input.value);
    });
    on(ui.input, 'keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        ui.form.requestSubmit();
      }
    });
    on(ui.stop, 'click', () => this.stop());
  }

  get conversationId(): string {
    return this.conversation.id;
  }

  /** Shows a conversation (as the server keeps it) and connects for it (taking over a run still waiting there). */
  async open(id: string): Promise<void> {
    const opening = ++this.opening;
    this.socket?.close();
    this.socket = null;
    this.views.clear();
    this.prompts.clear();
    this.conversation = { id, title: 'New conversation', updatedAt: Date.now(), turns: [] };
    this.ui.log.replaceChildren();
    const conversation = await this.store.open(id);
    if (opening !== this.opening) return;
    this.conversation = conversation;
    this.ui.log.replaceChildren(...this.conversation.turns.map((t) => this.viewOf(t).element));
    if (this.conversation.turns.length === 0) {
      this.ui.log.append(emptyState(this.page, (text) => this.ask(text)));
    }
    this.markEditable();
    this.updateControls();
    if (this.websocketPath === null) {
      this.ui.connection.textContent = 'This server has no WebSocket route: the chat is off.';
      return;
    }
    this.socket = new ChatSocket(this.websocketPath, id, {
      message: (m) => this.receive(m),
      open: () => {
        this.ui.connection.textContent = '';
      },
      closed: (reason, retrying) => {
        this.ui.connection.textContent = retrying ? `Reconnecting… (${reason})` : `Disconnected: ${reason}`;
      },
    });
  }

  /** Sends a question, with the images chosen in the composer (or, on a retry, the turn's own). */
  ask(text: string, again?: Attachment[]): void {
    if ((text.trim() === '' && this.attachments.count === 0 && !again?.length) || !this.socket) return;
    const images = again ?? this.attachments.take();
    // The server cancels a run still going when a new message comes (NAT's rule): so does the page.
    const previous = this.running();
    if (previous) {
      previous.status = 'stopped';
      this.end(previous);
    }
    const history = this.conversation.turns
      .filter((t) => t.status === 'done')
      .flatMap((t) => [
        { role: 'user', content: t.question },
        { role: 'assistant', content: t.answer },
      ]);
    const turn: Turn = {
      id: crypto.randomUUID(),
      question: text,
      answer: '',
      steps: [],
      status: 'running',
      sentAt: Date.now(),
      ...(images.length ? { attachments: images.map(({ name, type }) => ({ name, type })) } : {}),
    };
    thumbnails.set(
      turn,
      images.map((i) => i.url),
    );
    if (this.conversation.turns.length === 0) {
      this.conversation.title = (text || images.map((i) => i.name).join(', ')).slice(0, 60);
      this.ui.log.replaceChildren();
    }
    this.conversation.turns.push(turn);
    this.ui.log.append(this.viewOf(turn).element);
    this.markEditable();
    this.ui.input.value = '';
    this.save();
    this.ui.listChanged();
    this.updateControls();
    this.socket.send({
      type: 'user_message',
      schema_type: 'chat_stream',
      id: turn.id,
      conversation_id: this.conversation.id,
      content: { messages: [...history, { role: 'user', content: userContent(text, images) }] },
    });
  }

  /** Cancels the running turn on the server (`stop_message`); its answer so far stays. */
  stop(): void {
    const turn = this.running();
    if (!turn) return;
    this.socket?.send({
      type: 'stop_message',
      id: crypto.randomUUID(),
      conversation_id: this.conversation.id,
    });
    turn.status = 'stopped';
    this.end(turn);
    this.ui.announce('Stopped');
  }

  private retry(turn: Turn): void {
    const urls = thumbnails.get(turn) ?? [];
    const images = (turn.attachments ?? []).flatMap((a, i) => (urls[i] ? [{ ...a, url: urls[i] }] : []));
    this.ask(turn.question, images);
  }

  /** Edit and resend: the last turn gives way to the edited question (its answer is not kept). */
  private edit(turn: Turn, text: string): void {
    const turns = this.conversation.turns;
    if (turns[turns.length - 1] !== turn || turn.status === 'running') return;
    turns.pop();
    this.views.get(turn.id)?.element.remove();
    this.views.delete(turn.id);
    this.ask(text);
  }

  /** Only the last turn's question can be edited, once it ended. */
  private markEditable(): void {
    const last = this.conversation.turns[this.conversation.turns.length - 1];
    for (const [id, view] of this.views) view.setEditable(id === last?.id && last.status !== 'running');
  }

  private running(): Turn | undefined {
    return this.conversation.turns.find((t) => t.status === 'running');
  }

  private viewOf(turn: Turn): TurnView {
    let view = this.views.get(turn.id);
    if (!view) {
      view = new TurnView(turn, {
        retry: (t) => this.retry(t),
        edit: (t, text) => this.edit(t, text),
        changed: () => this.save(),
        announce: (text) => this.ui.announce(text),
      });
      this.views.set(turn.id, view);
    }
    return view;
  }

  private receive(message: ServerMessage): void {
    const turn =
      this.conversation.turns.find((t) => t.id === message.parent_id) ??
      (message.type === 'error_message' ? undefined : this.running());
    if (!turn) {
      if (message.type === 'error_message') this.showStrayError(message);
      return;
    }
    const view = this.viewOf(turn);
    this.followOutput();
    const content = message.content ?? {};
    if (message.type === 'system_response_message' || message.type === 'system_intermediate_message') {
      this.prompts.passed(turn, view);
    }
    const at = Date.parse(message.timestamp ?? '') || Date.now();
    switch (message.type) {
      case 'system_response_message':
        if (typeof content.text === 'string' && content.text !== '') view.appendText(content.text);
        if (message.status === 'complete' && turn.status === 'running') {
          turn.status = turn.error ? 'failed' : 'done';
          this.end(turn);
          this.ui.announce('Answer complete');
        }
        break;
      case 'system_intermediate_message':
        view.upsertStep(message.id, String(content.name ?? 'step'), String(content.payload ?? ''), at);
        break;
      case 'system_interaction_message':
        this.prompts.show(turn, view, message);
        break;
      case 'error_message':
        this.showError(turn, view, message);
        break;
      case 'observability_trace_message':
        if (typeof content.observability_trace_id === 'string') turn.traceId = content.observability_trace_id;
        turn.tokens = tokenUsageOf(content.token_usage) ?? turn.tokens;
        view.refresh();
        break;
      default:
        return;
    }
    this.save();
  }

  /** Keeps the newest output in sight while the person is reading at the bottom (not when scrolled up). */
  private followOutput(): void {
    const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
    if (atBottom)
      requestAnimationFrame(() => window.scrollTo({ top: document.documentElement.scrollHeight }));
  }

  private showError(turn: Turn, view: TurnView, message: ServerMessage): void {
    const content = message.content as { code?: string; message?: string; details?: string };
    const error = { message: content.message ?? 'Error', details: content.details ?? '' };
    if (content.code === 'invalid_data_content' || content.code === 'invalid_message') {
      // A reply the server did not take: shown on the turn, the run goes on.
      turn.error = { message: 'Reply not accepted', details: error.details };
      view.refresh();
      return;
    }
    turn.error = error;
    if (turn.status === 'running') turn.status = 'failed';
    this.end(turn);
  }

  private showStrayError(message: ServerMessage): void {
    const content = message.content as { message?: string; details?: string };
    this.ui.connection.textContent = `${content.message ?? 'Error'}: ${content.details ?? ''}`;
  }

  /** A turn that stopped running: its prompts close, its actions appear. */
  private end(turn: Turn): void {
    this.prompts.ended(turn, this.viewOf(turn));
    turn.endedAt ??= Date.now();
    this.viewOf(turn).refresh();
    this.markEditable();
    this.updateControls();
    this.save();
  }

  private updateControls(): void {
    this.ui.stop.disabled = !this.running();
  }

  private save(): void {
    this.store.save(this.conversation);
  }
}
