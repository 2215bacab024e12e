import type { AgentCapabilities, Tool } from '@ag-ui/core';
import type { AppConfig } from '../config/config.loader';

/** The tools the configured workflow offers (an agent's `tool_names`), as AG-UI tools. */
function toolsOf(app: AppConfig): Tool[] {
  const names = (app.settings.workflow as { tool_names?: unknown }).tool_names;
  if (!Array.isArray(names)) return [];
  return names
    .filter((n): n is string => typeof n === 'string' && app.functions.has(n))
    .map((name) => {
      const fn = app.functions.get(name)!;
      const tool: Tool = { name, description: fn.description };
      if (fn.parameters) tool.parameters = fn.parameters;
      return tool;
    });
}

/** `GET <ag_ui_path>/capabilities`: what this endpoint declares (AG-UI `AgentCapabilities`). */
export function capabilitiesOf(app: AppConfig): AgentCapabilities {
  const items = toolsOf(app);
  const approvals = items.some((t) => t.name === 'ask_confirmation');
  const identity: AgentCapabilities['identity'] = { name: app.workflow.type, type: 'interlude' };
  if (app.workflow.description) identity.description = app.workflow.description;
  return {
    identity,
    transport: {
      streaming: true,
      websocket: false,
      httpBinary: false,
      pushNotifications: false,
      resumable: false,
    },
    tools: { supported: items.length > 0, items, parallelCalls: false, clientProvided: false },
    state: { snapshots: true, deltas: false },
    humanInTheLoop: { supported: true, approvals, interrupts: true, approveWithEdits: approvals },
    // Images as image parts with a data source, of general.front_end.attachments' types and size.
    multimodal: { input: { image: app.workflow.images !== undefined } },
  };
}
