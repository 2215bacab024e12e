import type { OutboundPolicy } from '../core/outbound/outbound-policy';
import { placeholdersIn } from './env-interpolation';
import type { GeneralConfig } from './config.schema';

type Loc = (string | number)[];

/**
 * A config file that a caller names rather than the operator serves: an evaluation file (`POST
 * /evaluate` names files of `general.evaluation.config_dir`). What it builds reaches only what the served
 * config allows: the served `general.outbound` (checked at connect time, for its LLMs too), the served
 * sandbox and attachment limits; nothing is read from the server's environment.
 */
export interface CallerNamed {
  /** The served config's general section, whose limits apply to what the file builds. */
  general: GeneralConfig;
  /** The served `general.outbound`, built once. */
  outbound: OutboundPolicy;
}

/** How far `parseConfig` trusts a file: the served config is the operator's own (the default). */
export interface ParseOptions {
  callerNamed?: CallerNamed;
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * What a caller-named file may not say, each with its path: `general.outbound` (the served policy
 * applies), a `${VAR}` placeholder (the server's environment would reach wherever the file sends it), an
 * MCP server started as a process (`stdio`: it would reach anything, unchecked).
 */
export function callerNamedProblems(plain: unknown): { loc: Loc; message: string }[] {
  const problems: { loc: Loc; message: string }[] = [];
  const top = isMapping(plain) ? plain : {};
  if (isMapping(top.general) && top.general.outbound !== undefined) {
    problems.push({
      loc: ['general', 'outbound'],
      message:
        "an evaluation file cannot change where the server sends requests: the served config's " +
        'general.outbound applies (list hosts in its allow_hosts)',
    });
  }
  for (const { loc, placeholder } of placeholdersIn(plain)) {
    problems.push({
      loc,
      message:
        `${placeholder}: an evaluation file is not expanded from the server's environment; write the value ` +
        'itself, or name a model of the served config (whose placeholders expand)',
    });
  }
  for (const [name, group] of Object.entries(isMapping(top.function_groups) ? top.function_groups : {})) {
    if (isMapping(group) && isMapping(group.server) && group.server.transport === 'stdio') {
      problems.push({
        loc: ['function_groups', name, 'server', 'transport'],
        message:
          'an evaluation file cannot start processes on the server: use an MCP server over streamable-http or sse',
      });
    }
  }
  return problems;
}
