import { IsBoolean, IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { callModel } from '../llm/llm-call';
import { defineTool, ToolConfig } from './define-tool';

const DESCRIPTION =
  'Useful to generate Python code. For any questions about code generation, you must only use this tool!';

export class CodeGenerationConfig extends ToolConfig {
  /** The `llms:` entry that writes the code. */
  @IsString() llm_name!: string;
  @IfPresent() @IsString() programming_language = 'Python';
  // NAT logs the question and the answer at debug level with it; both are in the run's steps here.
  @IfPresent() @IsBoolean() verbose = false;
}

/**
 * `code_generation` (NAT's tool, package nvidia-nat-langchain): the question goes to its own LLM with
 * NAT's prompt (code only, in `programming_language`), and the model's text is the tool's answer.
 */
export const codeGenerationTool = defineTool<CodeGenerationConfig, { query: string }>({
  type: 'code_generation',
  description: DESCRIPTION,
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What the code must do' } },
    required: ['query'],
  },
  config: CodeGenerationConfig,
  references: (config) => [{ loc: ['llm_name'], section: 'llms', name: config.llm_name }],
  run: async ({ query }, ctx, config, built) => {
    const llm = built.llm(config.llm_name);
    const system =
      '\nYou are a helpful code assistant that can teach a junior developer how to code.  Your language of\n' +
      ` choice is ${config.programming_language}. Don't explain the code, just generate the code block itself.\n`;
    const response = await callModel(ctx, llm, {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: `\n${query}\n` },
      ],
    });
    return response.content;
  },
});
