import { defineTool } from './define-tool';
import { askPerson, chosen, InteractionToolConfig } from './interaction-response';

/** The fixed options of interactive-tools.txt. */
export const CONFIRMATION_OPTIONS = [
  { id: 'yes', label: 'Yes', value: 'yes' },
  { id: 'no', label: 'No', value: 'no' },
  { id: 'no_with_feedback', label: 'No — tell me what to change', value: 'no_with_feedback' },
];

/**
 * `ask_confirmation` (interactive-tools.txt): asks a person to approve before the agent acts. The answer
 * the model reads: `confirmed` true for `yes`, false for `no` and `no_with_feedback`; text typed instead
 * of choosing means `no_with_feedback` with that text as `free_text`. An approval may carry
 * `edited_args`: the agent then runs `target_tool` with those arguments, whatever the model passes.
 */
export const askConfirmationTool = defineTool<
  InteractionToolConfig,
  { question: string; target_tool?: string }
>({
  type: 'ask_confirmation',
  description:
    'A mandatory safety gate for mutating operations. You must call this before any create/update/delete/deploy ' +
    'action, and proceed only if the answer has "confirmed": true. Options shown to the user: yes, no, ' +
    'no_with_feedback (rejected, with revision notes in free_text).',
  parameters: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'The approval question shown to the user' },
      target_tool: {
        type: 'string',
        description: 'Name of the tool that will be called if approved (informational)',
      },
    },
    required: ['question'],
    additionalProperties: false,
  },
  config: InteractionToolConfig,
  asksPerson: true,
  run: ({ question }, ctx, config) =>
    askPerson(
      ctx,
      { input_type: 'radio', text: question, options: CONFIRMATION_OPTIONS },
      config,
      (answer) => {
        const { option, text } = chosen(answer);
        const selected = option ?? 'no_with_feedback';
        const confirmed = selected === 'yes';
        const edited = confirmed && 'edited_args' in answer ? answer.edited_args : undefined;
        return {
          selected_option_id: selected,
          free_text: text,
          confirmed,
          ...(edited ? { edited_args: edited } : {}),
        };
      },
    ),
});
