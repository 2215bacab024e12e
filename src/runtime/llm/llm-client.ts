import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import type { Response, ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { ChatUsage } from '../chat-completion';
import { LLM_DEFAULTS, type LlmConfig } from './llm.config';
import { llmError, type LlmTarget } from './llm-error';

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

function usageOf(completion: ChatCompletion): ChatUsage | null {
  const usage = completion.usage;
  if (!usage) return null;
  const { prompt_tokens, completion_tokens, total_tokens } = usage;
  return { prompt_tokens, completion_tokens, total_tokens };
}

function responseOf(completion: ChatCompletion): LlmResponse {
  const message = completion.choices[0]?.message;
  return {
    content: message?.content ?? '',
    toolCalls: (message?.tool_calls ?? []).filter((c): c is ModelToolCall => c.type === 'function'),
    usage: usageOf(completion),
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
      ...(send ? { fetch: send } : {}),
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
        ? await this.streamed(params, signal, request.onText)
        : responseOf(await this.sdk.chat.completions.create({ ...params, stream: false }, { signal }));
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
      return await this.sdk.responses.create(
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
    } catch (err) {
      throw llmError(err, this.target, callerSignal, timeout);
    }
  }

  private async streamed(
    params: ChatCompletionCreateParamsBase,
    signal: AbortSignal,
    onText: LlmRequest['onText'],
  ): Promise<LlmResponse> {
    const stream = this.sdk.chat.completions.stream(
      { ...params, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let inToolCall = false;
    stream.on('chunk', (chunk) => {
      const delta = chunk.choices[0]?.delta;
      if (delta?.tool_calls?.length) inToolCall = true;
      if (delta?.content) onText?.(delta.content, inToolCall);
    });
    return responseOf(await stream.finalChatCompletion());
  }
}
