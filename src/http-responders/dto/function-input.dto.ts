import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Ctor, BuiltFunction } from '../../runtime/function-type';
import { EchoInput } from '../../runtime/functions/echo.function';
import { CounterInput } from '../../runtime/functions/per-user-counter.function';
import { ScriptedInput } from '../../runtime/functions/scripted.function';
import { ToolArguments } from '../../runtime/tools/define-tool';
import { ChatMessageDto } from './chat-message.dto';
import { ChatRequestDto } from './chat-request.dto';

/*
 * The built-in functions' inputs as the HTTP routes document them. Each extends the runtime's plain
 * class (whose class-validator rules it inherits unchanged) with the OpenAPI description.
 */

export class EchoInputDto extends EchoInput {
  @ApiProperty({ description: 'The text to echo back', example: 'Hello, world' })
  declare message: string;
}

export class CounterInputDto extends CounterInput {
  @ApiProperty({ enum: ['increment', 'get'], example: 'increment' })
  declare action: 'increment' | 'get';
}

export class ScriptedInputDto extends ScriptedInput {
  @ApiPropertyOptional({ description: 'The user message', example: 'Plan my trip' })
  declare input_message?: string;

  @ApiPropertyOptional({
    type: [ChatMessageDto],
    description: 'A conversation; the last user message is the input',
  })
  declare messages?: ChatMessageDto[];
}

/** A tool run as a workflow: its arguments, checked against its JSON Schema when it runs. */
export class ToolArgumentsDto extends ToolArguments {}

const DOCUMENTED = new Map<Ctor, Ctor>([
  [EchoInput, EchoInputDto],
  [CounterInput, CounterInputDto],
  [ScriptedInput, ScriptedInputDto],
  [ToolArguments, ToolArgumentsDto],
]);

/**
 * The DTO a route takes a function's input as: the chat request, or the documented class of the
 * function's input (a class no face knows, such as a custom function's, as it is).
 */
export function functionInputDto(fn: BuiltFunction): Ctor {
  if (fn.input.kind === 'chat') return ChatRequestDto;
  return DOCUMENTED.get(fn.input.dto) ?? fn.input.dto;
}
