import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHAT_ROLES, type ChatRole, type ContentPart } from '../../runtime/chat-input';
import { ChatMessageInput } from '../../runtime/functions/chat-message';

/** A chat message on the wire: the runtime's rules, documented for OpenAPI. */
export class ChatMessageDto extends ChatMessageInput {
  @ApiProperty({ enum: CHAT_ROLES })
  declare role: ChatRole;

  @ApiProperty({
    nullable: true,
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }],
  })
  declare content: string | ContentPart[] | null;

  @ApiPropertyOptional() declare name?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  declare tool_calls?: Record<string, unknown>[];

  @ApiPropertyOptional() declare tool_call_id?: string;
}
