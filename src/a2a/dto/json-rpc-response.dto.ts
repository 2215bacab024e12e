import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ApiJsonValueProperty,
  ApiJsonValuePropertyOptional,
} from '../../http-responders/dto/json-value.decorator';

export class JsonRpcErrorDto {
  @ApiProperty({ type: 'integer', example: -32001, description: 'JSON-RPC or A2A error code' }) code!: number;
  @ApiProperty({ example: 'Task not found' }) message!: string;
  @ApiJsonValuePropertyOptional() data?: unknown;
}

/** A JSON-RPC 2.0 response, as A2A's methods answer (a `result`, or an `error`). */
export class JsonRpcResponseDto {
  @ApiProperty({ enum: ['2.0'] }) jsonrpc!: string;
  @ApiJsonValueProperty({
    description: "The request's id (a string, a number, or null when it was unreadable)",
  })
  id!: string | number | null;
  @ApiJsonValuePropertyOptional({ description: 'The A2A result (a Task, a Message…): absent on an error' })
  result?: unknown;
  @ApiPropertyOptional({ type: JsonRpcErrorDto, description: 'Absent on success' }) error?: JsonRpcErrorDto;
}
