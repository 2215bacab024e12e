import { IsString } from 'class-validator';
import { lastUserText, type ChatRequest } from '../chat-input';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { BuildContext, ConfigProblem, ConfigReference, Ctor, FunctionType } from '../function-type';
import type { WorkflowContext } from '../workflow-context';
import { argumentsFromText, checkedArguments, type JsonSchema } from './json-schema';

/** What every tool's config accepts: its `_type`, and a description that replaces the default one. */
export class ToolConfig {
  @IsString() _type!: string;
  @IfPresent() @IsString() description?: string;
}

/** The body of a tool run as a workflow (`/v1/workflow`): the tool's arguments, checked against its schema. */
export class ToolArguments {}

/** A tool as its author writes it. `A` is the arguments' type, as `parameters` describes them. */
export interface ToolDefinition<C extends ToolConfig, A> {
  /** The `_type` configs name it by. */
  type: string;
  /** What the model reads to decide when to call it (a config's `description` replaces it). */
  description: string;
  /** The JSON Schema of its arguments, or one made from its config (e.g. from a URL template). */
  parameters: JsonSchema | ((config: C) => JsonSchema);
  /** Its config class (class-validator); `ToolConfig` when it has no settings. */
  config?: Ctor<C>;
  check?(config: C): ConfigProblem[];
  references?(config: C): ConfigReference[];
  /** It asks a person: agents then hold back the other tools called in the same turn. */
  asksPerson?: boolean;
  /** Runs the tool with arguments that fit `parameters`; what it returns (text or JSON) goes to the model. */
  run(args: A, ctx: WorkflowContext, config: C, built: BuildContext): Promise<unknown> | unknown;
}

/**
 * Makes a function type from a tool definition; register it with `FunctionRegistry.register` and name it
 * under `functions:` like any built-in tool (see examples/custom-tool).
 */
export function defineTool<C extends ToolConfig = ToolConfig, A = Record<string, unknown>>(
  definition: ToolDefinition<C, A>,
): FunctionType<C> {
  const { type, parameters } = definition;
  return {
    type,
    description: definition.description,
    config: definition.config ?? (ToolConfig as Ctor<C>),
    check: definition.check,
    references: definition.references,
    build(config, built) {
      const schema = typeof parameters === 'function' ? parameters(config) : parameters;
      return {
        type,
        description: config.description ?? definition.description,
        input: { kind: 'schema', dto: ToolArguments },
        fromChat: (request: ChatRequest) => argumentsFromText(lastUserText(request.messages), schema),
        parameters: schema,
        asksPerson: definition.asksPerson,
        // Journaled, so a replay after a takeover does not run a finished tool call again.
        run: async (input, ctx) => {
          const args = checkedArguments<A>(schema, input);
          return ctx.journaled(`tool:${type}`, () => definition.run(args, ctx, config, built));
        },
      };
    },
  };
}
