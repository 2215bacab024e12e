import type { WorkflowContext } from '../workflow-context';
import { answerVariables, type PromptAnswer } from '../prompts';
import { OutboundError, type OutboundPolicy } from '../../core/outbound/outbound-policy';
import { outboundRequest, type OutboundResponse } from '../../core/outbound/outbound-request';
import { redactUrl } from '../../core/outbound/redact-url';
import { renderDeep, renderTemplate } from '../template';
import { fillUrl } from '../tools/url-template';
import { sleep, wordChunks } from '../text';
import type { FetchConfig, ScriptedConfig, ScriptedStepConfig } from './scripted.config';

/**
 * A failure the script asked for (its author's message, shown to the caller), or one of its fetch
 * steps (naming the URLs the config calls: for the log), reported with the configured type name.
 */
export class ScriptedFailure extends Error {
  constructor(
    message: string,
    readonly errorType: string,
    readonly expose = true,
  ) {
    super(message);
    this.name = errorType;
  }
}

type StepOutcome = 'next' | 'cancelled';

/**
 * Runs one step: 'next', or a promise for a step that waits (of the answer, for a prompt). Not an
 * async function: a run waiting on a prompt holds the prompt's promise and one reaction, no suspended frame.
 */
function runStep(
  step: ScriptedStepConfig,
  ctx: WorkflowContext,
  vars: Record<string, unknown>,
  outbound: OutboundPolicy,
): StepOutcome | Promise<StepOutcome | PromptAnswer> {
  if (step.stream) {
    const { text, chunk_words = 1, delay_seconds = 0, repeat = 1 } = step.stream;
    if (delay_seconds > 0) return streamSlowly(step.stream, ctx, vars);
    const chunks = wordChunks(renderTemplate(text, vars), chunk_words);
    for (let r = 0; r < repeat; r++) {
      for (const chunk of chunks) {
        ctx.signal.throwIfAborted();
        ctx.emit(chunk);
      }
    }
    vars.streamed = `${String(vars.streamed ?? '')}${chunks.join('').repeat(repeat)}`;
    return 'next';
  }
  if (step.fail) {
    throw new ScriptedFailure(
      renderTemplate(step.fail.message, vars),
      step.fail.error_type ?? 'WorkflowError',
    );
  }
  if (step.prompt) {
    const { save_as: _, ...prompt } = step.prompt;
    return ctx.prompt({ ...prompt, text: renderTemplate(prompt.text, vars) });
  }
  return waitingStep(step, ctx, vars, outbound);
}

async function streamSlowly(
  stream: NonNullable<ScriptedStepConfig['stream']>,
  ctx: WorkflowContext,
  vars: Record<string, unknown>,
): Promise<StepOutcome> {
  const { text, chunk_words = 1, delay_seconds = 0, repeat = 1 } = stream;
  const chunks = wordChunks(renderTemplate(text, vars), chunk_words);
  for (let r = 0; r < repeat; r++) {
    for (const chunk of chunks) {
      ctx.signal.throwIfAborted();
      await sleep(delay_seconds * 1000, ctx.signal);
      ctx.emit(chunk);
    }
  }
  vars.streamed = `${String(vars.streamed ?? '')}${chunks.join('').repeat(repeat)}`;
  return 'next';
}

/** The steps that wait on something other than a person: steps, sleeps, authorizations, fetches. */
async function waitingStep(
  step: ScriptedStepConfig,
  ctx: WorkflowContext,
  vars: Record<string, unknown>,
  outbound: OutboundPolicy,
): Promise<StepOutcome> {
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
  } else if (step.sleep) {
    await sleep(step.sleep.seconds * 1000, ctx.signal);
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
 * One run of a script. Not an async loop: a run waiting on a prompt holds this object, its promise and
 * one reaction on the prompt, no suspended frame. Each step is followed through one promise job, as
 * the `await` of the loop it replaces was, so a run ends no sooner than it did (a face that exposes the
 * execution right after starting it still sees it running).
 */
export class ScriptRun {
  /** The step run last. */
  private at = 0;
  private resolve!: (output: unknown) => void;
  private reject!: (reason: unknown) => void;

  constructor(
    private readonly config: ScriptedConfig,
    private readonly ctx: WorkflowContext,
    private readonly vars: Record<string, unknown>,
    private readonly outbound: OutboundPolicy,
  ) {}

  start(): Promise<unknown> {
    const run = new Promise<unknown>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.step(0);
    return run;
  }

  private step(i: number): void {
    const { steps } = this.config;
    if (i >= steps.length) return this.end(this.config.output);
    this.at = i;
    let outcome: StepOutcome | Promise<StepOutcome | PromptAnswer>;
    try {
      outcome = runStep(steps[i], this.ctx, this.vars, this.outbound);
    } catch (err) {
      outcome = Promise.reject(err as Error);
    }
    // A bound method rather than a closure: a waiting run keeps it.
    Promise.resolve(outcome).then(this.after.bind(this), this.reject);
  }

  private after(outcome: StepOutcome | PromptAnswer): void {
    if (typeof outcome === 'object') {
      const saveAs = this.config.steps[this.at].prompt?.save_as;
      try {
        if (saveAs) this.vars[saveAs] = answerVariables(outcome);
      } catch (err) {
        return this.reject(err);
      }
      if (outcome.type === 'cancel') outcome = 'cancelled';
    }
    if (outcome === 'cancelled') this.end(this.config.cancel_output ?? 'Cancelled.');
    else this.step(this.at + 1);
  }

  private end(template: string | undefined): void {
    try {
      if (template === undefined) return this.resolve(String(this.vars.streamed ?? ''));
      const output = renderTemplate(template, this.vars);
      if (this.config.stream_output !== false) this.ctx.emit(output);
      this.resolve(output);
    } catch (err) {
      this.reject(err);
    }
  }
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
    if (err instanceof OutboundError) throw new ScriptedFailure(err.message, 'FetchError', false);
    throw err;
  }
  const ok = response.status >= 200 && response.status < 300;
  if (!ok) {
    throw new ScriptedFailure(`${method} ${redactUrl(url)} answered ${response.status}`, 'FetchError', false);
  }
  const text = response.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
