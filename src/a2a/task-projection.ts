import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import type { ExecutionRecord } from '../executions/model/execution-record';
import type { ExecutionUrls } from '../http-responders/execution-urls';
import type { ExecutionEvent } from '../runtime/execution-event';
import type { Prompt, PromptAnswer } from '../runtime/prompts';
import {
  agentMessage,
  answerSummary,
  chunkPart,
  dataPart,
  resultParts,
  textPart,
  type TaskIds,
} from './a2a-parts';

/** The one artifact a task has: the workflow's output (streamed chunks, or its result). */
export const OUTPUT_ARTIFACT = 'output';

/** The A2A states a task rests in: a stream and a blocking send stop there. */
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
]);

/** What the execution's record keeps for the A2A face (plain data: any replica reads it). */
export interface A2aFaceOptions {
  contextId: string;
  /** The message that started the task, as sent (A2A JSON). */
  message: unknown;
}

/**
 * An execution seen as an A2A task: fed the execution's events in order, it keeps the task's state,
 * history and output, and says which stream updates each event makes.
 */
export class TaskProjection {
  private state = TaskState.TASK_STATE_SUBMITTED;
  private statusMessage: Message | undefined;
  private timestamp = new Date().toISOString();
  private readonly history: Message[];
  private chunks: Part[] = [];
  private result: Part[] | undefined;
  /** Seeded from a record: the output streamed before is not in `chunks`, the result says it all. */
  private seeded = false;

  constructor(
    private readonly ids: TaskIds,
    firstMessage: Message,
    private readonly urls: ExecutionUrls,
  ) {
    this.history = [firstMessage];
  }

  get current(): TaskState {
    return this.state;
  }

  /** Whether a blocking send returns (and a stream of a send ends) in this state. */
  get settled(): boolean {
    return TERMINAL.has(this.state) || this.state === TaskState.TASK_STATE_INPUT_REQUIRED;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.state);
  }

  /** The task as it stands; `withHistory` false leaves the history out. */
  task(withHistory = true): Task {
    const artifacts: Artifact[] = [];
    const parts = this.result ?? mergeText(this.chunks);
    if (parts.length > 0) artifacts.push(this.artifact(parts));
    return {
      id: this.ids.taskId,
      contextId: this.ids.contextId,
      status: { state: this.state, message: this.statusMessage, timestamp: this.timestamp },
      artifacts,
      history: withHistory ? [...this.history] : [],
      metadata: undefined,
    };
  }

  /** The whole output so far as one artifact update (none before there is any). */
  wholeOutput(): StreamResponse | undefined {
    const parts = this.result ?? mergeText(this.chunks);
    return parts.length > 0 ? this.artifactUpdate(parts, false, true) : undefined;
  }

  /** The output's text (what a context remembers as the task's answer). */
  outputText(): string {
    const parts = this.result ?? mergeText(this.chunks);
    return parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('');
  }

  /** A stream's first two updates: the task as submitted, then working on it. */
  begin(): StreamResponse[] {
    const submitted: StreamResponse = { payload: { $case: 'task', value: this.task() } };
    return [submitted, ...this.move(TaskState.TASK_STATE_WORKING)];
  }

  /** Applies one execution event; returns the stream updates it makes (often none). */
  apply(event: ExecutionEvent): StreamResponse[] {
    if (this.state === TaskState.TASK_STATE_SUBMITTED) this.state = TaskState.TASK_STATE_WORKING;
    switch (event.kind) {
      case 'output': {
        const part = chunkPart(event.value);
        const append = this.chunks.length > 0;
        this.chunks.push(part);
        return [this.artifactUpdate([part], append, false)];
      }
      case 'interaction_required': {
        const prompt = event.prompt as Prompt;
        const message = this.promptMessage(event.interactionId, prompt);
        // A notification is shown, never waited on: the task keeps working, the message says it.
        if (prompt.input_type === 'notification') return this.move(TaskState.TASK_STATE_WORKING, message);
        return this.move(TaskState.TASK_STATE_INPUT_REQUIRED, message);
      }
      case 'interaction_resolved': {
        const answer = event.response as PromptAnswer;
        if (answer.type === 'notification') return [];
        this.history.push(this.answerMessage(answer));
        return this.move(TaskState.TASK_STATE_WORKING);
      }
      case 'oauth_required':
        return this.move(
          TaskState.TASK_STATE_AUTH_REQUIRED,
          this.consentMessage(event.authUrl, event.provider),
        );
      case 'oauth_resolved':
        return this.move(TaskState.TASK_STATE_WORKING);
      case 'completed': {
        const updates: StreamResponse[] = [];
        if (this.seeded || this.chunks.length === 0 || !event.streamed) {
          this.result = resultParts(event.result);
          updates.push(this.artifactUpdate(this.result, false, true));
        }
        return [...updates, ...this.move(TaskState.TASK_STATE_COMPLETED)];
      }
      case 'failed':
        return this.move(
          TaskState.TASK_STATE_FAILED,
          agentMessage(this.ids, [textPart(event.error.message)]),
        );
      case 'cancelled':
        return this.move(TaskState.TASK_STATE_CANCELED, agentMessage(this.ids, [textPart(event.reason)]));
      default:
        return [];
    }
  }

  /**
   * Where a record says the task stands, for an execution whose events this process cannot read
   * (another replica runs it): its state, open question or consent, result or error.
   */
  seed(record: Readonly<ExecutionRecord>): void {
    this.seeded = true;
    switch (record.status) {
      case 'running':
        this.state = TaskState.TASK_STATE_WORKING;
        break;
      case 'interaction_required': {
        const id = record.openInteractionId!;
        this.move(
          TaskState.TASK_STATE_INPUT_REQUIRED,
          this.promptMessage(id, record.interactions[id].prompt),
        );
        break;
      }
      case 'oauth_required':
        this.move(
          TaskState.TASK_STATE_AUTH_REQUIRED,
          this.consentMessage(record.oauth?.authUrl ?? '', record.oauth?.provider ?? ''),
        );
        break;
      case 'completed':
        this.result = resultParts(record.result);
        this.move(TaskState.TASK_STATE_COMPLETED);
        break;
      case 'failed':
        // The engine records a cancel as a failure of this type (ExecutionService.cancel).
        if (record.error?.type === 'ExecutionCancelled') this.move(TaskState.TASK_STATE_CANCELED);
        else
          this.move(
            TaskState.TASK_STATE_FAILED,
            agentMessage(this.ids, [textPart(record.error?.message ?? '')]),
          );
        break;
    }
  }

  private move(state: TaskState, message?: Message): StreamResponse[] {
    this.state = state;
    this.statusMessage = message;
    this.timestamp = new Date().toISOString();
    if (message) this.history.push(message);
    const status = { state, message, timestamp: this.timestamp };
    return [{ payload: { $case: 'statusUpdate', value: { ...this.ids, status, metadata: undefined } } }];
  }

  private artifactUpdate(parts: Part[], append: boolean, lastChunk: boolean): StreamResponse {
    const artifact = this.artifact(parts);
    return {
      payload: {
        $case: 'artifactUpdate',
        value: { ...this.ids, artifact, append, lastChunk, metadata: undefined },
      },
    };
  }

  private artifact(parts: Part[]): Artifact {
    return {
      artifactId: OUTPUT_ARTIFACT,
      name: OUTPUT_ARTIFACT,
      description: '',
      parts,
      metadata: undefined,
      extensions: [],
    };
  }

  /** A person's prompt: its text, the NAT prompt as data, and where else it can be answered. */
  private promptMessage(interactionId: string, prompt: Prompt): Message {
    const responseUrl = this.urls.response(this.ids.taskId, interactionId);
    return agentMessage(this.ids, [textPart(prompt.text), dataPart(prompt)], {
      interlude: { interaction_id: interactionId, response_url: responseUrl },
    });
  }

  private consentMessage(authUrl: string, provider: string): Message {
    return agentMessage(this.ids, [
      textPart(`Authorize ${provider}: ${authUrl}`),
      dataPart({ auth_url: authUrl, provider }),
    ]);
  }

  private answerMessage(answer: PromptAnswer): Message {
    return {
      ...agentMessage(this.ids, [textPart(answerSummary(answer)), dataPart(answer)]),
      role: Role.ROLE_USER,
    };
  }
}

/** Streamed text chunks as one text part (data chunks kept as they came). */
function mergeText(chunks: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of chunks) {
    const last = merged[merged.length - 1];
    if (part.content?.$case === 'text' && last?.content?.$case === 'text') {
      merged[merged.length - 1] = textPart(last.content.value + part.content.value);
    } else merged.push(part);
  }
  return merged;
}
