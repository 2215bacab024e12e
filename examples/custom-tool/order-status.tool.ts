import { IsObject } from 'class-validator';
import { defineTool, ToolConfig } from '../../src/runtime/tools/define-tool';
import { ToolInputError } from '../../src/runtime/tools/json-schema';

/** The tool's settings under `functions:`; class-validator checks them at start-up. */
export class OrderStatusConfig extends ToolConfig {
  /** Order id → status. A real tool would ask a database or an API (with `ctx.authenticate` for OAuth). */
  @IsObject() orders!: Record<string, string>;
}

/**
 * `order_status`: a tool of your own. `parameters` is what the model sees (JSON Schema); `run` gets
 * arguments that fit it, the run's context (`ctx.signal`, `ctx.prompt`, `ctx.authenticate`…) and the
 * config. What it returns goes back to the model (text as it is, anything else as JSON); what it throws
 * goes back too, as `Error: <message>` (unless the agent sets `handle_tool_errors: false`).
 */
export const orderStatusTool = defineTool<OrderStatusConfig, { order_id: string }>({
  type: 'order_status',
  description: 'Looks up the status of a customer order by its id (such as "A-1001").',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string', description: 'The order id, e.g. "A-1001"' } },
    required: ['order_id'],
    additionalProperties: false,
  },
  config: OrderStatusConfig,
  run: ({ order_id }, _ctx, config) => {
    const status = config.orders[order_id];
    if (status === undefined) throw new ToolInputError(`There is no order "${order_id}"`);
    return { order_id, status };
  },
});
