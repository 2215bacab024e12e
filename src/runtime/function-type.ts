import type { ChatRequestDto } from '../core/dto/chat-request.dto';
import type { WorkflowFn } from './workflow-context';

export type Ctor<T = object> = new () => T;

/** The shape of the body a workflow accepts on the generate routes. */
export type WorkflowInput = { kind: 'chat' } | { kind: 'schema'; dto: Ctor };

/** A function as built from config: what it accepts and how to run it. */
export interface BuiltFunction {
  /** The `_type` it was built from. */
  type: string;
  description: string;
  input: WorkflowInput;
  /** Converts an OpenAI chat request (the chat routes' body) into this function's input. */
  fromChat(request: ChatRequestDto): unknown;
  run: WorkflowFn;
}

/** Everything a function type receives when it is built. */
export interface BuildContext {
  /** The name it is built under (`workflow` or a key of `functions:`). */
  name: string;
}

/** A registered `_type`: its config class (validated at start-up) and how to build it. */
export interface FunctionType<C extends object = object> {
  type: string;
  aliases?: string[];
  description: string;
  config: Ctor<C>;
  /** Checks that span fields (one action per step, template names that exist), once the shape is valid. */
  check?(config: C): ConfigProblem[];
  build(config: C, context: BuildContext): BuiltFunction;
}

/** A problem found in a function's config beyond its shape; `loc` is relative to the function's config. */
export interface ConfigProblem {
  loc: (string | number)[];
  message: string;
}
