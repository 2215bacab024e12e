import { defineTool } from './define-tool';
import { askPerson, chosen, InteractionToolConfig } from './interaction-response';

interface QuestionOption {
  id: string;
  label: string;
  description?: string;
}

/**
 * `ask_question` (interactive-tools.txt): an open question with optional choices, shown as a `radio`
 * prompt with those options or a `text` prompt without; the person may always type instead.
 */
export const askQuestionTool = defineTool<
  InteractionToolConfig,
  { question: string; options?: QuestionOption[] }
>({
  type: 'ask_question',
  description:
    'An open-ended question with optional structured choices. The user can always type freely regardless of ' +
    'whether options are provided.',
  parameters: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'The question to present' },
      options: {
        type: 'array',
        description: 'Structured choices (clickable buttons)',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Stable identifier returned in selected_option_id' },
            label: { type: 'string', description: 'Display text on the button' },
            description: { type: 'string', description: 'Clarifying text below the button' },
          },
          required: ['id', 'label'],
          additionalProperties: false,
        },
      },
    },
    required: ['question'],
    additionalProperties: false,
  },
  config: InteractionToolConfig,
  asksPerson: true,
  run: ({ question, options = [] }, ctx, config) => {
    const prompt = options.length
      ? {
          input_type: 'radio' as const,
          text: question,
          options: options.map((o) => ({ ...o, value: o.id })),
        }
      : { input_type: 'text' as const, text: question };
    return askPerson(ctx, prompt, config, (answer) => {
      const { option, text } = chosen(answer);
      return { selected_option_id: option, free_text: text, confirmed: null };
    });
  },
});
