import { IsDefined, IsIn, IsInt, IsNumber, IsObject, IsString, Matches, Max, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';

export const LLM_TYPES = ['openai', 'nim'] as const;
export type LlmType = (typeof LLM_TYPES)[number];

/** Per `_type`: the endpoint when `base_url` is left out, and where the API key comes from otherwise. */
export const LLM_DEFAULTS: Record<LlmType, { baseUrl: string; keyVariable: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', keyVariable: 'OPENAI_API_KEY' },
  nim: { baseUrl: 'https://integrate.api.nvidia.com/v1', keyVariable: 'NVIDIA_API_KEY' },
};

/**
 * An `llms:` entry: any OpenAI-compatible chat completions endpoint (`openai`: OpenAI, vLLM, Ollama,
 * LM Studio, a gateway) or NVIDIA NIM (`nim`). NeMo Agent Toolkit's field names.
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
}
