import { chatCompletionFunction } from './agents/chat-completion-function';
import { parallelExecutor } from './agents/parallel-executor';
import { perUserReactAgent, reactAgent } from './agents/react-agent';
import { reasoningAgent } from './agents/reasoning-agent';
import { responsesApiAgent } from './agents/responses-api-agent';
import { rewooAgent } from './agents/rewoo-agent';
import { routerAgent } from './agents/router-agent';
import { sequentialExecutor } from './agents/sequential-executor';
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
import { codeGenerationTool } from './tools/code-generation.tool';
import { httpRequestTool } from './tools/http-request.tool';
import { requestAttributesTool } from './tools/request-attributes.tool';
import { tavilyGroupType } from './tools/web/tavily-group';
import { wikiSearchTool } from './tools/web/wiki-search.tool';
import { mcpClientGroupType, perUserMcpClientGroupType } from './mcp/mcp-client-group';

/** A registry holding every built-in `_type`: workflows, LLM agents, tools and function groups. */
export function builtinRegistry(): FunctionRegistry {
  return new FunctionRegistry()
    .register(echoFunction)
    .register(scriptedFunction)
    .register(perUserCounterFunction)
    .register(toolCallingAgent)
    .register(reactAgent)
    .register(perUserReactAgent)
    .register(reasoningAgent)
    .register(sequentialExecutor)
    .register(parallelExecutor)
    .register(chatCompletionFunction)
    .register(responsesApiAgent)
    .register(rewooAgent)
    .register(routerAgent)
    .register(currentDatetimeTool)
    .register(currentTimezoneTool)
    .register(requestAttributesTool)
    .register(calculatorTool)
    .register(httpRequestTool)
    .register(askConfirmationTool)
    .register(askQuestionTool)
    .register(codeGenerationTool)
    .register(wikiSearchTool)
    .registerGroup(mcpClientGroupType)
    .registerGroup(perUserMcpClientGroupType)
    .registerGroup(calculatorGroupType)
    .registerGroup(tavilyGroupType);
}
