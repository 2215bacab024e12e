import { IsArray, IsString } from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';

/** `general.front_end.mcp`: what the MCP server face (at `mcp_path`) offers. */
export class McpServerConfig {
  /**
   * The tools served, as `nat mcp serve --tool_names`: function names, the workflow's `_type`, or a
   * function group's name for all its tools. Unset: every function and the workflow.
   */
  @IfPresent() @IsArray() @IsString({ each: true }) tool_names?: string[];
}
