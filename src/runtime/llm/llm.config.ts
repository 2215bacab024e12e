import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { OPTIMIZER_FIELDS, type NatFields } from '../nat-fields';

export const LLM_TYPES = ['openai', 'nim', 'dynamo'] as const;
export type LlmType = (typeof LLM_TYPES)[number];

/** Per `_type`: the endpoint when `base_url` is left out, and where the API key comes from otherwise. */
export const LLM_DEFAULTS: Record<LlmType, { baseUrl: string; keyVariable: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', keyVariable: 'OPENAI_API_KEY' },
  nim: { baseUrl: 'https://integrate.api.nvidia.com/v1', keyVariable: 'NVIDIA_API_KEY' },
  // NVIDIA Dynamo serves the OpenAI API; NAT's `dynamo` is its `openai` plus routing hints.
  dynamo: { baseUrl: 'https://api.openai.com/v1', keyVariable: 'OPENAI_API_KEY' },
};

/**
 * An `llms:` entry: any OpenAI-compatible chat completions endpoint (`openai`: OpenAI, vLLM, Ollama,
 * LM Studio, a gateway; `dynamo`: NVIDIA Dynamo) or NVIDIA NIM (`nim`). NeMo Agent Toolkit's field names.
 */
export class LlmConfig {
  @IsDefined() @IsIn(LLM_TYPES as unknown as string[]) _type!: LlmType;
  /** The model to ask for (NAT also accepts `model`). */
  @IsDefined() @IsString() model_name!: string;
  @IfPresent()
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'base_url must be an http(s) URL' })
  base_url?: string;
  /** Default: OPENAI_API_KEY (`openai`) or NVIDIA_API_KEY (`nim`) from the environment. */
  @IfPresent() @IsString() api_key?: string;
  @IfPresent() @Max(2) @Min(0) @IsNumber() temperature?: number;
  @IfPresent() @Max(1) @Min(0) @IsNumber() top_p?: number;
  @IfPresent() @Min(1) @IsInt() max_tokens?: number;
  @IfPresent() @IsInt() seed?: number;
  /** For a whole call (retries and a streamed answer included); a model that takes longer fails the run. */
  @IfPresent() @Min(0.001) @IsNumber() timeout_seconds = 120;
  /** Retries of a 408, 409, 429 or 5xx answer (or a lost connection), with exponential backoff. */
  @IfPresent() @Min(0) @IsInt() max_retries = 2;
  /** Extra headers on every request (values may use `${ENV_VAR}`). */
  @IfPresent() @IsObject() headers: Record<string, string> = {};
  /** Sent as the request's `chat_template_kwargs` (vLLM and NIM read it, e.g. `{thinking: true}`). */
  @IfPresent() @IsObject() chat_template_kwargs?: Record<string, unknown>;
  /** NAT's API switch: `responses` for responses_api_agent; every other function calls chat completions. */
  @IfPresent() @IsIn(['chat_completion', 'responses']) api_type: 'chat_completion' | 'responses' =
    'chat_completion';
  /** Stop sequences for every call (an agent's own, like ReAct's "Observation:", are added). */
  @IfPresent() @IsArray() @IsString({ each: true }) stop?: string[];
}

const RETRIES = 'a 408, 409, 429 or 5xx answer or a lost connection is retried, max_retries times';

/** NAT's LLM fields that Interlude reads under its own names or accepts and ignores. */
export const LLM_NAT_FIELDS: NatFields = {
  renamed: { request_timeout: 'timeout_seconds', num_retries: 'max_retries' },
  ignored: {
    ...OPTIMIZER_FIELDS,
    do_auto_retry: RETRIES,
    retry_on_status_codes: RETRIES,
    retry_on_errors: RETRIES,
    verify_ssl: 'TLS certificates are always verified (NODE_EXTRA_CA_CERTS adds a CA)',
    thinking:
      "NAT's thinking switch adds a model-specific system prompt; write it in the agent's system_prompt",
    logprobs: 'log probabilities are not requested',
    top_logprobs: 'log probabilities are not requested',
  },
};

const NVEXT = "Dynamo's nvext routing hints are not sent; requests are plain OpenAI chat completions";

/** `dynamo`'s own fields: its routing hints. */
export const DYNAMO_NAT_FIELDS: NatFields = {
  ignored: Object.fromEntries(
    [
      'enable_nvext_hints',
      'nvext_prefix_id_template',
      'nvext_prefix_total_requests',
      'nvext_prefix_osl',
      'nvext_prefix_iat',
      'nvext_prediction_trie_path',
      'prediction_trie_path',
      'nvext_cache_pin_type',
      'nvext_cache_control_mode',
      'nvext_max_sensitivity',
      'max_sensitivity',
    ].map((field) => [field, NVEXT]),
  ),
};
