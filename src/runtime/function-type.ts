import type { OutboundPolicy } from '../core/outbound/outbound-policy';
import type { SandboxConfig } from '../core/workers/sandbox.config';
import type { ChatRequest } from './chat-input';
import type { ImageLimits } from './attachments';
import type { FileLimits } from './files';
import type { LlmClient } from './llm/llm-client';
import type { NatFields } from './nat-fields';
import type { JsonSchema } from './tools/json-schema';
import type { WorkflowContext, WorkflowFn } from './workflow-context';

export type Ctor<T = object> = new () => T;

/**
 * What a function accepts: an OpenAI chat request, or the fields a plain class describes and checks
 * (class-validator rules, no HTTP or OpenAPI types). Faces validate with it and document it with DTOs
 * of their own (http-responders/dto/function-input.dto.ts).
 */
export type WorkflowInput = { kind: 'chat' } | { kind: 'schema'; dto: Ctor };

/** A function as built from config: what it accepts and how to run it. */
export interface BuiltFunction {
  /** The `_type` it was built from. */
  type: string;
  description: string;
  /** The model that answers, when its config names one (an agent's LLM): chat answers report it. */
  model?: string;
  input: WorkflowInput;
  /** Converts an OpenAI chat request (the chat routes' body) into this function's input. */
  fromChat(request: ChatRequest): unknown;
  run: WorkflowFn;
  /**
   * The JSON Schema of the arguments a model passes when it calls this function as a tool; `run` then
   * receives those arguments. Without it, a model passes one string (`input_message`), handed over as a
   * one-message chat through `fromChat`.
   */
  parameters?: JsonSchema;
  /** It asks a person (ask_confirmation, ask_question): an agent never runs it alongside other tools. */
  asksPerson?: boolean;
  /**
   * It reads images in a chat (image_url parts of the user's messages), within these limits; without it
   * a chat carrying an image is refused.
   */
  images?: ImageLimits;
  /**
   * It reads files in a chat (`file` parts of the user's messages, inline), within these limits; without
   * it a chat carrying a file is refused.
   */
  files?: FileLimits;
  /**
   * The tools it may call, by the names it offers them under (an agent's `tool_names`, groups expanded):
   * what NAT's reasoning agent lists in its plan. Connects the groups they come from.
   */
  tools?(asker?: WorkflowContext): Promise<{ name: string; description: string }[]>;
}

/** Everything a function type receives when it is built. */
export interface BuildContext {
  /** The name it is built under (`workflow` or a key of `functions:`). */
  name: string;
  /** An LLM of `llms:` by name (names were checked against the file, see `FunctionType.references`). */
  llm(name: string): LlmClient;
  /**
   * A function of `functions:` by name. Call it when running, not while building: functions are built in
   * file order, so one declared further down is not built yet.
   */
  fn(name: string): BuiltFunction;
  /** Where the function's own requests may go (`general.outbound`): use it for every outbound call. */
  outbound: OutboundPolicy;
  /** The size and queues of the worker threads a function runs untrusted work on (`general.sandbox`). */
  sandbox: SandboxConfig;
  /** The images a function that reads them accepts (`general.front_end.attachments`); undefined: none. */
  images?: ImageLimits;
  /** The files a function that reads them accepts (`general.front_end.attachments`); undefined: none. */
  files?: FileLimits;
  /** A group of `function_groups:` by name (built before `functions:`), or undefined. */
  group(name: string): BuiltFunctionGroup | undefined;
  /** A provider of `authentication:` by name: its `_type`, and its settings when they are valid. */
  authProvider(name: string): { type: string; config?: object } | undefined;
  /** The environment the config was read with: where an API key left out of the file is looked up. */
  env: NodeJS.ProcessEnv;
}

/** NeMo Agent Toolkit's separator between a function group's name and its tool's: `<group>__<tool>`. */
export const GROUP_SEPARATOR = '__';

/**
 * A function group as built from config (NeMo Agent Toolkit's `function_groups:`): tools that come
 * together from one source, named `<group>__<tool>`. Its tools may only be known once it has connected.
 */
export interface BuiltFunctionGroup {
  type: string;
  /**
   * Connects once (later calls wait for the same attempt); rejects with a message naming the group.
   * `asker`: the run that needs its tools, whose user may be asked to authorize (an `mcp_oauth2` server).
   */
  connect(asker?: WorkflowContext): Promise<void>;
  /** Its tools an agent may call, by full name (`<group>__<tool>`); after `connect()`. */
  functions(): Map<string, BuiltFunction>;
  /** Stops what the group started (connections, child processes). */
  close(): Promise<void>;
  /**
   * Connects at its first use rather than at start-up, so that start-up does not wait for it (NAT builds
   * a per-user group at each user's first request, never at start-up).
   */
  readonly connectsOnFirstUse?: boolean;
}

/** A registered function group `_type`: its config class (validated at start-up) and how to build it. */
export interface FunctionGroupType<C extends object = object> {
  type: string;
  description: string;
  config: Ctor<C>;
  /** NeMo Agent Toolkit fields its config class does not name (see takeNatFields). */
  natFields?: NatFields;
  check?(config: C): ConfigProblem[];
  /** The auth providers it names (checked against `authentication:` and `types`). */
  references?(config: C): ConfigReference[];
  build(config: C, context: BuildContext): BuiltFunctionGroup;
}

/** A name a config refers to in another section; the loader reports the ones that do not exist. */
export interface ConfigReference {
  /** Relative to the function's config, like ConfigProblem's. */
  loc: (string | number)[];
  section: 'llms' | 'functions' | 'authentication';
  name: string;
  /** The `_type`s it may name (function groups' auth providers). */
  types?: string[];
}

/** A registered `_type`: its config class (validated at start-up) and how to build it. */
export interface FunctionType<C extends object = object> {
  type: string;
  aliases?: string[];
  description: string;
  config: Ctor<C>;
  /** NeMo Agent Toolkit fields its config class does not name (see takeNatFields). */
  natFields?: NatFields;
  /** Each user gets an instance of their own, as `per_user: true` asks (NAT's `per_user_*` types). */
  perUser?: boolean;
  /** Checks that span fields (one action per step, template names that exist), once the shape is valid. */
  check?(config: C): ConfigProblem[];
  /** The LLMs, functions and auth providers the config names, so a typo is reported at start-up. */
  references?(config: C): ConfigReference[];
  build(config: C, context: BuildContext): BuiltFunction;
}

/** A problem found in a function's config beyond its shape; `loc` is relative to the function's config. */
export interface ConfigProblem {
  loc: (string | number)[];
  message: string;
}
