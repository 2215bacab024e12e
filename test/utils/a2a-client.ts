import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** An A2A client (the SDK's, over JSON-RPC) built from the server's agent card, sending `headers`. */
export function a2aClient(baseUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    return fetch(input, { ...init, headers: merged });
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return factory.createFromUrl(baseUrl);
}

export function aTextPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: undefined,
  };
}

export function aDataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata: undefined,
  };
}

/** A file part: its bytes (`raw`) or a link (`url`), with its media type and name. */
export function aFilePart(content: Part['content'], mediaType: string, filename: string): Part {
  return { content, mediaType, filename, metadata: undefined };
}

/** A user's message: text, or parts; on a task (and its context) when `on` names one. */
export function aUserMessage(
  content: string | Part[],
  on: Partial<Pick<Task, 'id' | 'contextId'>> = {},
): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: typeof content === 'string' ? [aTextPart(content)] : content,
    taskId: on.id ?? '',
    contextId: on.contextId ?? '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The SendMessage request for a message. */
export function aSend(message: Message, returnImmediately = false) {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}

export const texts = (parts: Part[] = []) =>
  parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));

export const datas = (parts: Part[] = []) =>
  parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));

export function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error(`Expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

export const stateOf = (task: Task) => TaskState[task.status!.state];

/** A stream's updates as short labels: `task:SUBMITTED`, `status:WORKING`, `artifact:<text>`. */
export function labelOf(update: StreamResponse): string {
  const p = update.payload!;
  switch (p.$case) {
    case 'task':
      return `task:${TaskState[p.value.status!.state].replace('TASK_STATE_', '')}`;
    case 'statusUpdate':
      return `status:${TaskState[p.value.status!.state].replace('TASK_STATE_', '')}`;
    case 'artifactUpdate':
      return `artifact:${texts(p.value.artifact?.parts).join('')}`;
    case 'message':
      return `message:${texts(p.value.parts).join('')}`;
  }
}

export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const update of stream) all.push(update);
  return all;
}
