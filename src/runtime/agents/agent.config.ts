import { IsArray, IsBoolean, IsDefined, IsInt, IsString, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';

/** What both agents accept (NeMo Agent Toolkit's field names). */
export class AgentConfig {
  @IsString() _type!: string;
  /**
   * An `llms:` entry, or a list of them: the first whose API key is set is used (the first one if
   * none is), so one config can run on NIM or OpenAI depending on the key at hand.
   */
  @IsDefined() @IsString({ each: true }) llm_name!: string | string[];
  /** `functions:` entries the agent may call. */
  @IfPresent() @IsArray() @IsString({ each: true }) tool_names: string[] = [];
  @IfPresent() @IsString() description?: string;
  @IfPresent() @IsString() system_prompt?: string;
  /** Appended to the system prompt. */
  @IfPresent() @IsString() additional_instructions?: string;
  /** Calls to the model before the run fails for want of a final answer. */
  @IfPresent() @Min(1) @IsInt() max_iterations = 15;
  /** A failing tool's error goes back to the model as its answer (else the run fails). */
  @IfPresent() @IsBoolean() handle_tool_errors = true;
  // Accepted for NeMo Agent Toolkit config compatibility; steps are always reported as intermediate steps.
  @IfPresent() @IsBoolean() verbose?: boolean;
}
