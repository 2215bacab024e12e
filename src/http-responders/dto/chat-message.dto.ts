import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHAT_ROLES, type ChatRole, type ContentPart } from '../../runtime/chat-input';
import { ChatMessageInput } from '../../runtime/functions/chat-message';

/** A chat message on the wire: the runtime's rules, documented for OpenAPI. */
export class ChatMessageDto extends ChatMessageInput {
  @ApiProperty({ enum: CHAT_ROLES })
  declare role: ChatRole;

  @ApiProperty({
    nullable: true,
    description:
      'A string, or a list of parts: {"type": "text", "text"} and, for a workflow that reads images, ' +
      '{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}} (inline png, jpeg, gif or webp ' +
      'within general.front_end.attachments; a remote URL is refused) and files: {"type": "file", "file": ' +
      '{"file_data": "data:application/pdf;base64,…", "filename"}} (inline, of general.front_end.attachments.file_types).',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }],
  })
  declare content: string | ContentPart[] | null;

  @ApiPropertyOptional() declare name?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  declare tool_calls?: Record<string, unknown>[];

  @ApiPropertyOptional() declare tool_call_id?: string;
}
