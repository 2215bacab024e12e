import { Type } from 'class-transformer';
import { IsArray, IsOptional, IsString, ValidateIf, ValidateNested, IsDefined } from 'class-validator';
import { lastUserText, type ChatRequest } from '../chat-input';
import { ChatMessageInput } from './chat-message';
import type { ConfigProblem, FunctionType } from '../function-type';
import type { WorkflowContext } from '../workflow-context';
import { answerVariables, promptProblems } from '../prompts';
import { OutboundError, type OutboundPolicy } from '../../core/outbound/outbound-policy';
import { outboundRequest, type OutboundResponse } from '../../core/outbound/outbound-request';
import { redactUrl } from '../../core/outbound/redact-url';
import { renderDeep, renderTemplate, templateNames } from '../template';
import { fillUrl, placeholderInHost } from '../tools/url-template';
import { sleep, wordChunks } from '../text';
import { STEP_ACTIONS, ScriptedConfig, type FetchConfig, type ScriptedStepConfig } from './scripted.config';

/** NeMo Agent Toolkit's agent input: a single message or a conversation. */
export class ScriptedInput {
  @ValidateIf((o: ScriptedInput) => o.messages === undefined)
  @IsDefined()
  @IsString()
  input_message?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageInput)
  messages?: ChatMessageInput[];
}

/** A failure the script asked for, reported with the configured type name. */
export class ScriptedFailure extends Error {
  constructor(
    message: string,
    readonly errorType: string,
  ) {
    super(message);
    this.name = errorType;
  }
}

function inputText(input: ScriptedInput): string {
  if (typeof input.input_message === 'string') return input.input_message;
  return input.messages?.length ? lastUserText(input.messages) : '';
}

async function runStep(
  step: ScriptedStepConfig,
  ctx: WorkflowContext,
  vars: Record<string, unknown>,
  outbound: OutboundPolicy,
): Promise<'next' | 'cancelled'> {
  if (step.step) {
    const { name, kind = 'tool', input, payload, duration_seconds = 0 } = step.step;
    await ctx.step(
      name,
      kind,
      async () => {
        await sleep(duration_seconds * 1000, ctx.signal);
        return renderDeep(payload ?? null, vars);
      },
      { input: renderDeep(input, vars) },
    );
  } else if (step.stream) {
    const { text, chunk_words = 1, delay_seconds = 0, repeat = 1 } = step.stream;
    const chunks = wordChunks(renderTemplate(text, vars), chunk_words);
    for (let r = 0; r < repeat; r++) {
      for (const chunk of chunks) {
        ctx.signal.throwIfAborted();
        if (delay_seconds > 0) await sleep(delay_seconds * 1000, ctx.signal);
        ctx.emit(chunk);
      }
    }
    vars.streamed = `${String(vars.streamed ?? '')}${chunks.join('').repeat(repeat)}`;
  } else if (step.sleep) {
    await sleep(step.sleep.seconds * 1000, ctx.signal);
  } else if (step.fail) {
    throw new ScriptedFailure(
      renderTemplate(step.fail.message, vars),
      step.fail.error_type ?? 'WorkflowError',
    );
  } else if (step.prompt) {
    const { save_as, ...prompt } = step.prompt;
    const answer = await ctx.prompt({ ...prompt, text: renderTemplate(prompt.text, vars) });
    if (save_as) vars[save_as] = answerVariables(answer);
    if (answer.type === 'cancel') return 'cancelled';
  } else if (step.authenticate) {
    await ctx.authenticate(step.authenticate.provider);
  } else if (step.fetch) {
    const fetch = step.fetch;
    // Journaled like a tool result: a replay after a takeover does not call the URL again.
    const value = await ctx.journaled('fetch', () => fetchAs(fetch, ctx, vars, outbound));
    if (step.fetch.save_as) vars[step.fetch.save_as] = value;
  }
  return 'next';
}

/**
 * Calls a URL, as the user when a provider is named; the JSON (or text) it answers. Placeholders are
 * URL-encoded (never in the host, see `check`); `general.outbound` sets where it may go, and how much
 * and how long it reads.
 */
async function fetchAs(
  config: FetchConfig,
  ctx: WorkflowContext,
  vars: Record<string, unknown>,
  outbound: OutboundPolicy,
): Promise<unknown> {
  const method = config.method ?? 'GET';
  let url: string;
  try {
    url = fillUrl(config.url, vars);
  } catch (err) {
    throw new ScriptedFailure((err as Error).message, 'ValueError');
  }
  const headers: Record<string, string> = config.provider
    ? { ...(await ctx.authenticate(config.provider)).headers }
    : {};
  let body: string | undefined;
  if (config.body !== undefined) {
    body = JSON.stringify(renderDeep(config.body, vars));
    headers['Content-Type'] = 'application/json';
  }
  let response: OutboundResponse;
  try {
    response = await outboundRequest(outbound, url, {
      method,
      headers,
      body,
      signal: ctx.signal,
      overflow: 'fail',
    });
  } catch (err) {
    if (err instanceof OutboundError) throw new ScriptedFailure(err.message, 'FetchError');
    throw err;
  }
  const ok = response.status >= 200 && response.status < 300;
  if (!ok) throw new ScriptedFailure(`${method} ${redactUrl(url)} answered ${response.status}`, 'FetchError');
  const text = response.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The scripted workflow: drives every path (steps, streaming, failures, prompts) without an LLM. */
export const scriptedFunction: FunctionType<ScriptedConfig> = {
  type: 'scripted',
  description: 'Runs a fixed list of steps: intermediate steps, streamed text, prompts, sleeps, failures.',
  config: ScriptedConfig,
  check(config) {
    const problems: ConfigProblem[] = [];
    const known = new Set(['input']);
    config.steps.forEach((step, i) => {
      const actions = Object.keys(step).filter((k) => step[k as keyof ScriptedStepConfig] !== undefined);
      const valid = actions.filter((k) => (STEP_ACTIONS as readonly string[]).includes(k));
      if (valid.length !== 1 || actions.length !== 1) {
        problems.push({
          loc: ['steps', i],
          message: `a step needs exactly one of ${STEP_ACTIONS.join(', ')}; found ${actions.join(', ') || 'none'}`,
        });
      }
      const text = step.stream?.text ?? step.fail?.message ?? step.prompt?.text ?? step.fetch?.url;
      for (const name of text ? templateNames(text) : []) {
        if (!known.has(name)) {
          problems.push({
            loc: ['steps', i],
            message: `template names "${name}", which no earlier step defines`,
          });
        }
      }
      if (step.prompt) {
        for (const p of promptProblems(step.prompt)) {
          problems.push({ loc: ['steps', i, 'prompt', p.field], message: p.message });
        }
        if (step.prompt.save_as) known.add(step.prompt.save_as);
      }
      if (step.fetch && !/^https?:\/\//.test(step.fetch.url)) {
        problems.push({ loc: ['steps', i, 'fetch', 'url'], message: 'must be an http(s) URL' });
      } else if (step.fetch && placeholderInHost(step.fetch.url)) {
        problems.push({
          loc: ['steps', i, 'fetch', 'url'],
          message: 'no {{placeholder}} may choose the host: put placeholders in the path or the query',
        });
      }
      if (step.fetch?.save_as) known.add(step.fetch.save_as);
    });
    for (const name of [
      ...templateNames(config.output ?? ''),
      ...templateNames(config.cancel_output ?? ''),
    ]) {
      if (!known.has(name) && name !== 'streamed') {
        problems.push({ loc: ['output'], message: `template names "${name}", which no step defines` });
      }
    }
    return problems;
  },
  build(config, context) {
    return {
      type: 'scripted',
      description: config.description ?? 'A scripted workflow.',
      input: { kind: 'schema', dto: ScriptedInput },
      fromChat: (request: ChatRequest) => ({ messages: request.messages }),
      async run(input, ctx) {
        const vars: Record<string, unknown> = { input: inputText(input as ScriptedInput) };
        let template = config.output;
        for (const step of config.steps) {
          if ((await runStep(step, ctx, vars, context.outbound)) === 'cancelled') {
            template = config.cancel_output ?? 'Cancelled.';
            break;
          }
        }
        if (template === undefined) return String(vars.streamed ?? '');
        const output = renderTemplate(template, vars);
        if (config.stream_output !== false) ctx.emit(output);
        return output;
      },
    };
  },
};
