import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One tool of an MCP client, as NeMo Agent Toolkit's `MCPToolInfo` names its fields. */
export class McpToolDto {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'The MCP server the tool comes from' }) server!: string;
  @ApiProperty({ description: 'Whether the server lists the tool right now' }) available!: boolean;
}

/** One MCP client (a function group of type `mcp_client`) and its tools. */
export class McpClientDto {
  @ApiProperty({ description: 'The function group that holds the client' }) function_group!: string;
  @ApiProperty({ example: 'streamable-http:http://localhost:9901/mcp' }) server!: string;
  @ApiProperty({ example: 'streamable-http' }) transport!: string;
  @ApiProperty() session_healthy!: boolean;
  @ApiProperty({ description: 'Whether the server needs an auth provider' }) protected!: boolean;
  @ApiProperty({ type: [McpToolDto] }) tools!: McpToolDto[];
  @ApiProperty() total_tools!: number;
  @ApiProperty() available_tools!: number;
  @ApiPropertyOptional({ description: 'Why the client could not be inspected' }) error?: string;
}

export class McpClientToolListDto {
  @ApiProperty({ type: [McpClientDto] }) mcp_clients!: McpClientDto[];
}
