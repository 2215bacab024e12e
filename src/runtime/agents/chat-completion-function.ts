import { IsDefined, IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { messageText } from '../chat-input';
import type { FunctionType } from '../function-type';
import { callModel } from '../llm/llm-call';
import type { ModelMessage } from '../llm/llm-client';
import { FUNCTION_BASE_FIELDS } from '../nat-fields';
import { agentResult, conversationOf, modelMessage } from './agent-input';
import { chatFunction } from './agent-function';

// NAT's default (nvidia-nat-core, chat_completion), word for word.
const SYSTEM_PROMPT =
  'You are a helpful AI assistant. Provide clear, accurate, and helpful responses to user queries. ' +
  'You can give general advice, recommendations, tips, and engage in conversation. Be helpful and informative.';

export class ChatCompletionConfig {
  @IsString() _type!: string;
  @IsDefined() @IsString() llm_name!: string;
  /** Sent first, unless the conversation has a system message of its own. */
  @IfPresent() @IsString() system_prompt = SYSTEM_PROMPT;
}

/**
 * `chat_completion` (NAT's, package nvidia-nat-core): the conversation goes to its LLM, after its
 * `system_prompt` when the conversation has no system message, and the model's text is the answer. As in
 * NAT, a failed call answers with an apology quoting the last message instead of failing (the error
 * itself is in the run's LLM step, never in the answer).
 */
export const chatCompletionFunction: FunctionType<ChatCompletionConfig> = {
  type: 'chat_completion',
  description: 'Chat completion',
  config: ChatCompletionConfig,
  natFields: { ignored: FUNCTION_BASE_FIELDS },
  references: (config) => [{ loc: ['llm_name'], section: 'llms', name: config.llm_name }],
  build(config, context) {
    const llm = context.llm(config.llm_name);
    return chatFunction({
      type: 'chat_completion',
      name: context.name,
      description: 'Chat completion',
      model: llm.model,
      inputDescription: 'The message to answer',
      run: async (input, ctx) => {
        const conversation = conversationOf(input);
        const messages: ModelMessage[] = conversation.map(modelMessage);
        if (config.system_prompt && !conversation.some((m) => m.role === 'system'))
          messages.unshift({ role: 'system', content: config.system_prompt });
        let answer: string;
        try {
          answer = (await callModel(ctx, llm, { messages })).content;
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          answer =
            `I apologize, but I encountered an error while processing your query: '${messageText(conversation.at(-1)?.content ?? '')}'. ` +
            'Please try rephrasing your question or try again later.';
        }
        return agentResult(answer, input, ctx, llm.model);
      },
    });
  },
};
