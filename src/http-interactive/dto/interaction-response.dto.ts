import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsObject } from 'class-validator';

/** `{"response": {...}}`: the answer is checked against its prompt by InteractionService. */
export class InteractionResponseDto {
  @ApiProperty({
    description:
      'The answer, discriminated by `type` (or `input_type`): text {text}; binary_choice, radio, dropdown ' +
      '{selected_option} (an approval may add edited_args: the replacement arguments of the tool it approves); ' +
      'checkbox {selected_options} (or selected_option: one option, as NAT sends it, or a list); notification {}; cancel {}',
    type: 'object',
    additionalProperties: true,
    example: { type: 'text', text: 'Yes, include Q4 projections' },
  })
  @IsDefined()
  @IsObject()
  response!: Record<string, unknown>;
}
