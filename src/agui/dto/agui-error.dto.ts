import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class RunInputIssueDto {
  @ApiProperty({
    example: 'messages.0.content',
    description: 'Where in the RunAgentInput ("" for all of it)',
  })
  path!: string;
  @ApiProperty({ example: 'is required' }) message!: string;
}

/** The AG-UI face's own refusals: a body that is not JSON (415) or not a RunAgentInput (400). */
export class AguiErrorDto {
  @ApiProperty({
    example: 'invalid_run_agent_input',
    enum: ['invalid_run_agent_input', 'unsupported_media_type'],
  })
  error!: string;
  @ApiProperty({ example: 'Invalid RunAgentInput' }) message!: string;
  @ApiPropertyOptional({ type: [RunInputIssueDto], description: 'What is wrong with the input (400)' })
  issues?: RunInputIssueDto[];
}
