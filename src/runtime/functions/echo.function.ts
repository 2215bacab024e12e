import { IsBoolean, IsDefined, IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { lastUserText, type ChatRequest } from '../chat-input';
import { chatCompletion, usageFor } from '../chat-completion';
import type { FunctionType } from '../function-type';
import { wordChunks } from '../text';

export class EchoConfig {
  @IsString() _type!: string;
  /** Take an OpenAI chat request and answer a chat completion instead of `{message}` → `{value}`. */
  @IfPresent() @IsBoolean() use_openai_api?: boolean;
  @IfPresent() @IsString() description?: string;
}

/** The echo function's input: the text to echo back. */
export class EchoInput {
  @IsDefined()
  @IsString()
  message!: string;
}

/** Echoes its input: streamed in word-sized chunks whose concatenation is exactly the input. */
export const echoFunction: FunctionType<EchoConfig> = {
  type: 'echo',
  description: 'Echoes the input message back, streamed word by word.',
  config: EchoConfig,
  build(config) {
    if (config.use_openai_api) {
      return {
        type: 'echo',
        description: config.description ?? 'Echoes the last user message as a chat completion.',
        input: { kind: 'chat' },
        fromChat: (request) => request,
        async run(input, ctx) {
          const request = input as ChatRequest;
          const text = lastUserText(request.messages);
          for (const chunk of wordChunks(text)) ctx.emit(chunk);
          const prompt = request.messages
            .map((m) => (typeof m.content === 'string' ? m.content : ''))
            .join(' ');
          return chatCompletion(text, {
            // No model behind it: the answer names the workflow.
            model: request.model ?? 'echo',
            usage: usageFor(prompt, text),
          });
        },
      };
    }
    return {
      type: 'echo',
      description: config.description ?? 'Echoes the input message back.',
      input: { kind: 'schema', dto: EchoInput },
      fromChat: (request: ChatRequest) => ({ message: lastUserText(request.messages) }),
      async run(input, ctx) {
        const text = (input as EchoInput).message;
        for (const chunk of wordChunks(text)) ctx.emit(chunk);
        return text;
      },
    };
  },
};
