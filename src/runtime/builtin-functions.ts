import { perUserReactAgent, reactAgent } from './agents/react-agent';
import { toolCallingAgent } from './agents/tool-calling-agent';
import { FunctionRegistry } from './function-registry';
import { echoFunction } from './functions/echo.function';
import { perUserCounterFunction } from './functions/per-user-counter.function';
import { scriptedFunction } from './functions/scripted.function';
import { askConfirmationTool } from './tools/ask-confirmation.tool';
import { askQuestionTool } from './tools/ask-question.tool';
import { calculatorTool } from './tools/calculator/calculator.tool';
import { calculatorGroupType } from './tools/calculator/calculator-group';
import { currentDatetimeTool, currentTimezoneTool } from './tools/current-datetime.tool';
import { httpRequestTool } from './tools/http-request.tool';
import { mcpClientGroupType } from './mcp/mcp-client-group';

/** A registry holding every built-in `_type`: workflows, LLM agents, tools and function groups. */
export function builtinRegistry(): FunctionRegistry {
  return new FunctionRegistry()
    .register(echoFunction)
    .register(scriptedFunction)
    .register(perUserCounterFunction)
    .register(toolCallingAgent)
    .register(reactAgent)
    .register(perUserReactAgent)
    .register(currentDatetimeTool)
    .register(currentTimezoneTool)
    .register(calculatorTool)
    .register(httpRequestTool)
    .register(askConfirmationTool)
    .register(askQuestionTool)
    .registerGroup(mcpClientGroupType)
    .registerGroup(calculatorGroupType);
}
