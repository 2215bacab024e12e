/**
 * `RunAgentInput` as the AG-UI face reads it: both 1.0 inputs (`protocolVersion`, optional `tools` and
 * `context`) and 0.0.5x inputs are accepted, unknown members ignored (spec 1.x `run-input`), anything
 * malformed reported with every reason before a stream opens.
 */
import { isJsonObject } from '../core/validation/json-object';

export interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

export interface InputMessage {
  id: string;
  role: string;
  content?: unknown;
  toolCalls?: unknown[];
  toolCallId?: string;
  name?: string;
}

export interface RunInput {
  threadId: string;
  runId: string;
  /** Present on 1.0 clients: they get `RUN_FINISHED {outcome: cancelled}` where older ones get RUN_ERROR. */
  protocolVersion?: string;
  parentRunId?: string;
  state?: unknown;
  messages: InputMessage[];
  tools: unknown[];
  context: unknown[];
  forwardedProps?: unknown;
  resume?: ResumeEntry[];
}

export interface InputIssue {
  path: string;
  message: string;
}

const ROLES = ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'];
const MAX_ID = 256;
const MAX_MESSAGES = 10_000;
const MAX_RESUME = 100;

function checkId(value: unknown, path: string, issues: InputIssue[]): void {
  if (typeof value !== 'string' || value === '') issues.push({ path, message: 'must be a non-empty string' });
  else if (value.length > MAX_ID) issues.push({ path, message: `must be at most ${MAX_ID} characters` });
}

function checkContent(m: Record<string, unknown>, path: string, issues: InputIssue[]): void {
  const content = m.content;
  const required = m.role !== 'assistant';
  if (content === undefined || content === null) {
    if (required && m.role !== 'activity') issues.push({ path: `${path}.content`, message: 'is required' });
    return;
  }
  if (m.role === 'activity') {
    if (!isJsonObject(content)) issues.push({ path: `${path}.content`, message: 'must be an object' });
    return;
  }
  if (typeof content === 'string') return;
  const parts = m.role === 'user' || m.role === 'tool';
  if (!parts || !Array.isArray(content)) {
    issues.push({
      path: `${path}.content`,
      message: parts ? 'must be a string or parts' : 'must be a string',
    });
    return;
  }
  content.forEach((part, i) => {
    if (!isJsonObject(part) || typeof part.type !== 'string') {
      issues.push({ path: `${path}.content[${i}]`, message: 'must be a part with a type' });
    }
  });
}

function checkMessages(value: unknown, issues: InputIssue[]): void {
  if (!Array.isArray(value)) {
    issues.push({ path: 'messages', message: 'is required and must be an array' });
    return;
  }
  if (value.length > MAX_MESSAGES) issues.push({ path: 'messages', message: `at most ${MAX_MESSAGES}` });
  value.slice(0, MAX_MESSAGES).forEach((m, i) => {
    const path = `messages[${i}]`;
    if (!isJsonObject(m)) return void issues.push({ path, message: 'must be an object' });
    checkId(m.id, `${path}.id`, issues);
    if (typeof m.role !== 'string' || !ROLES.includes(m.role)) {
      return void issues.push({ path: `${path}.role`, message: `must be one of ${ROLES.join(', ')}` });
    }
    checkContent(m, path, issues);
    if (m.role === 'tool') checkId(m.toolCallId, `${path}.toolCallId`, issues);
    if (m.toolCalls !== undefined && !Array.isArray(m.toolCalls)) {
      issues.push({ path: `${path}.toolCalls`, message: 'must be an array' });
    }
  });
}

function checkResume(value: unknown, issues: InputIssue[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) return void issues.push({ path: 'resume', message: 'must be an array' });
  if (value.length > MAX_RESUME) issues.push({ path: 'resume', message: `at most ${MAX_RESUME} entries` });
  value.slice(0, MAX_RESUME).forEach((entry, i) => {
    const path = `resume[${i}]`;
    if (!isJsonObject(entry)) return void issues.push({ path, message: 'must be an object' });
    checkId(entry.interruptId, `${path}.interruptId`, issues);
    if (entry.status !== 'resolved' && entry.status !== 'cancelled') {
      issues.push({ path: `${path}.status`, message: 'must be "resolved" or "cancelled"' });
    }
    if (entry.payload === null) issues.push({ path: `${path}.payload`, message: 'must not be null' });
  });
}

function optionalArray(value: unknown, path: string, issues: InputIssue[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) issues.push({ path, message: 'must be an array' });
  return Array.isArray(value) ? value : [];
}

/** The input when it is a valid RunAgentInput, or every reason it is not. */
export function parseRunInput(body: unknown): { input: RunInput } | { issues: InputIssue[] } {
  if (!isJsonObject(body)) return { issues: [{ path: '', message: 'the body must be a JSON object' }] };
  const issues: InputIssue[] = [];
  checkId(body.threadId, 'threadId', issues);
  checkId(body.runId, 'runId', issues);
  checkMessages(body.messages, issues);
  const tools = optionalArray(body.tools, 'tools', issues);
  const context = optionalArray(body.context, 'context', issues);
  checkResume(body.resume, issues);
  for (const key of ['protocolVersion', 'parentRunId'] as const) {
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string') {
      issues.push({ path: key, message: 'must be a string' });
    }
  }
  if (issues.length > 0) return { issues };
  const input: RunInput = {
    threadId: body.threadId as string,
    runId: body.runId as string,
    messages: body.messages as InputMessage[],
    tools,
    context,
    state: body.state ?? undefined,
    forwardedProps: body.forwardedProps ?? undefined,
    resume: (body.resume as ResumeEntry[] | null | undefined) ?? undefined,
  };
  if (typeof body.protocolVersion === 'string') input.protocolVersion = body.protocolVersion;
  if (typeof body.parentRunId === 'string') input.parentRunId = body.parentRunId;
  return { input };
}
