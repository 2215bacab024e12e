import { Logger } from '@nestjs/common';
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { Response, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { ChatUsage } from '../chat-completion';
import { LLM_DEFAULTS, type LlmConfig } from './llm.config';
import { answerOf, StreamedAnswer } from './llm-answer';
import { llmError, type LlmTarget } from './llm-error';
import { guardedFetch } from './llm-fetch';
import { checkedResponse } from './responses-answer';

export type ModelMessage = ChatCompletionMessageParam;
export type ModelTool = ChatCompletionTool;
export type ModelToolCall = ChatCompletionMessageFunctionToolCall;
export type ModelUserContent = ChatCompletionUserMessageParam['content'];

export interface LlmRequest {
  messages: ModelMessage[];
  tools?: ModelTool[];
  stop?: string[];
  /** Stream the answer (token events and output on streaming routes) or wait for it whole. */
  stream: boolean;
  signal: AbortSignal;
  /** Each piece of answer text as it streams; `inToolCall` once the model has begun calling tools. */
  onText?(delta: string, inToolCall: boolean): void;
}

export interface LlmResponse {
  content: string;
  toolCalls: ModelToolCall[];
  /** As the endpoint reported it (null when it reports none). */
  usage: ChatUsage | null;
}

/**
 * `promise`, or the signal's reason as soon as it is aborted: the SDK waits between retries on a timer
 * the signal does not end, so a call would outlast its deadline (and a cancelled run) by that wait.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason as Error);
    signal.addEventListener('abort', aborted, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

const MAX_LOGGED_CHARS = 500;

/**
 * What the SDK logs (a streamed line it cannot parse, among others) goes to this server's log, each
 * value cut short: the SDK's own would print a 10 MB line whole with console.error.
 */
function sdkLogger(): NonNullable<ConstructorParameters<typeof OpenAI>[0]>['logger'] {
  const logger = new Logger('OpenAI SDK');
  const line = (message: string, rest: unknown[]) =>
    [message, ...rest]
      .map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))))
      .map((v) =>
        v.length > MAX_LOGGED_CHARS ? `${v.slice(0, MAX_LOGGED_CHARS)}… (${v.length} characters)` : v,
      )
      .join(' ');
  return {
    error: (message: string, ...rest: unknown[]) => logger.error(line(message, rest)),
    warn: (message: string, ...rest: unknown[]) => logger.warn(line(message, rest)),
    info: (message: string, ...rest: unknown[]) => logger.debug(line(message, rest)),
    debug: (message: string, ...rest: unknown[]) => logger.debug(line(message, rest)),
  };
}

/** One `llms:` entry: an OpenAI-compatible endpoint called through the official `openai` SDK. */
export class LlmClient {
  readonly model: string;
  readonly endpoint: string;
  /** Whether an API key was given (in the config or its environment variable). */
  readonly hasApiKey: boolean;
  /** NAT's `api_type`: `responses` is the API responses_api_agent calls. */
  readonly apiType: LlmConfig['api_type'];
  private readonly target: LlmTarget;
  private readonly sdk: OpenAI;

  constructor(
    readonly name: string,
    private readonly config: LlmConfig,
    env: NodeJS.ProcessEnv,
    /** How requests are sent; the SDK's (global) fetch unless set (policyLlmFetch for a caller's model). */
    send?: typeof fetch,
  ) {
    const { baseUrl, keyVariable } = LLM_DEFAULTS[config._type];
    const apiKey = config.api_key || env[keyVariable] || undefined;
    this.model = config.model_name;
    this.endpoint = (config.base_url ?? baseUrl).replace(/\/+$/, '');
    this.hasApiKey = apiKey !== undefined;
    this.apiType = config.api_type;
    this.target = {
      name,
      model: this.model,
      endpoint: this.endpoint,
      timeoutSeconds: config.timeout_seconds,
      maxRetries: config.max_retries,
      hasApiKey: this.hasApiKey,
      keyVariable,
      apiKey,
    };
    // Loaded with the first `llms:` entry: a config without an LLM never loads the SDK.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OpenAI: Sdk } = require('openai') as typeof import('openai');
    this.sdk = new Sdk({
      // Local servers (Ollama, vLLM) take any key; a hosted one answers 401, reported with a hint.
      apiKey: apiKey ?? 'no-key',
      baseURL: this.endpoint,
      // The call's own deadline (complete()) covers retries and a streamed body; this is a backstop.
      timeout: (config.timeout_seconds + 1) * 1000,
      maxRetries: config.max_retries,
      defaultHeaders: config.headers,
      // Each answer's size bounded, and retry waits kept reasonable (llm-fetch.ts).
      fetch: guardedFetch(send ?? globalThis.fetch),
      logger: sdkLogger(),
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const { temperature, top_p, max_tokens, seed, chat_template_kwargs } = this.config;
    const stop = [...new Set([...(this.config.stop ?? []), ...(request.stop ?? [])])];
    const params: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: request.messages,
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...(stop.length ? { stop } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(top_p !== undefined ? { top_p } : {}),
      ...(max_tokens !== undefined ? { max_tokens } : {}),
      ...(seed !== undefined ? { seed } : {}),
      // Not in OpenAI's types; the SDK sends body fields as given.
      ...(chat_template_kwargs ? ({ chat_template_kwargs } as object) : {}),
    };
    const timeout = AbortSignal.timeout(this.config.timeout_seconds * 1000);
    const signal = AbortSignal.any([request.signal, timeout]);
    try {
      return request.stream
        ? await untilAborted(this.streamed(params, signal, request.onText), signal)
        : answerOf(
            await untilAborted(
              this.sdk.chat.completions.create({ ...params, stream: false }, { signal }),
              signal,
            ),
          );
    } catch (err) {
      throw llmError(err, this.target, request.signal, timeout);
    }
  }

  /**
   * One call to the Responses API (`POST /responses`), whole: `params` are the model's input and tools,
   * the config's sampling settings are added. Errors and deadlines as complete()'s.
   */
  async respond(
    params: Omit<ResponseCreateParamsNonStreaming, 'model'>,
    callerSignal: AbortSignal,
  ): Promise<Response> {
    const { temperature, top_p, max_tokens } = this.config;
    const timeout = AbortSignal.timeout(this.config.timeout_seconds * 1000);
    const signal = AbortSignal.any([callerSignal, timeout]);
    try {
      const answer = this.sdk.responses.create(
        {
          model: this.model,
          ...(temperature !== undefined ? { temperature } : {}),
          ...(top_p !== undefined ? { top_p } : {}),
          ...(max_tokens !== undefined ? { max_output_tokens: max_tokens } : {}),
          ...params,
          stream: false,
        },
        { signal },
      );
      return checkedResponse(await untilAborted(answer, signal));
    } catch (err) {
      throw llmError(err, this.target, callerSignal, timeout);
    }
  }

  /**
   * A streamed answer, read chunk by chunk into a StreamedAnswer (which checks each chunk as it comes)
   * rather than by the SDK's ChatCompletionStream, which stores a chunk at whatever index the server
   * names in it.
   */
  private async streamed(
    params: ChatCompletionCreateParamsBase,
    signal: AbortSignal,
    onText: LlmRequest['onText'],
  ): Promise<LlmResponse> {
    const stream = await this.sdk.chat.completions.create(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    const answer = new StreamedAnswer();
    for await (const chunk of stream) {
      const text = answer.add(chunk);
      if (text) onText?.(text, answer.inToolCall);
    }
    return answer.answer();
  }
}
