import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { withBase } from './config-base';
import { EVALUATOR_TYPES } from './eval.schema';
import { AUTH_PROVIDER_TYPES } from './authentication.schema';
import type { FunctionRegistry } from '../runtime/function-registry';
import { LLM_TYPES } from '../runtime/llm/llm.config';

export type Support = 'supported' | 'accepted with a warning' | 'not supported' | 'invalid';

/** One component of a config file and what `interlude serve` does with it. */
export interface ComponentLine {
  path: string;
  type: string;
  support: Support;
  note?: string;
}

const MIGRATE = 'docs/from-nemo-agent-toolkit.md';
const VIA_MCP = `serve it with \`nat mcp serve\` and list it as an mcp_client function group (${MIGRATE})`;

/** Sections whose entries only NAT's Python components use (retrievers, memory, object stores). */
const UNUSED_SECTIONS: Record<string, string> = {
  embedders: "NAT's Python retrievers and memory use embedders; nothing here does",
  memory: 'memory backends are Python components; serve the functions that use them over MCP',
  retrievers: 'retrievers are Python components; serve the functions that use them over MCP',
  object_stores: 'object stores are Python components; serve the functions that use them over MCP',
  ttc_strategies: "NAT's test-time compute strategies do not run here",
  trainers: 'finetuning (`nat finetune`) does not run here',
  trainer_adapters: 'finetuning (`nat finetune`) does not run here',
  trajectory_builders: 'finetuning (`nat finetune`) does not run here',
  middleware: "NAT's function middleware does not run here",
};

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The paths a message list speaks of (`file:line: path: …`, or ConfigProblemAt paths). */
const touches = (paths: string[], path: string) =>
  paths.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`));

/**
 * Every component of a config (its plain YAML, `base:` merged) with what serve does with it: built,
 * built with NAT fields ignored, not supported (and the way across), or invalid (it stops serve).
 * `problems` and `warnings` are the loader's paths.
 */
export function componentReport(
  plain: unknown,
  registry: FunctionRegistry,
  problems: string[],
  warnings: string[],
): ComponentLine[] {
  const file = isMapping(plain) ? plain : {};
  const lines: ComponentLine[] = [];
  const known: Record<string, (type: string) => boolean> = {
    llms: (t) => (LLM_TYPES as readonly string[]).includes(t),
    authentication: (t) => AUTH_PROVIDER_TYPES.includes(t),
    function_groups: (t) => registry.getGroup(t) !== undefined,
    functions: (t) => registry.get(t) !== undefined,
    workflow: (t) => registry.get(t) !== undefined,
    'eval.evaluators': (t) => (EVALUATOR_TYPES as readonly string[]).includes(t),
  };
  const add = (section: string, path: string, entry: unknown) => {
    const type = isMapping(entry) && typeof entry._type === 'string' ? entry._type : '?';
    if (section in UNUSED_SECTIONS) {
      lines.push({ path, type, support: 'accepted with a warning', note: UNUSED_SECTIONS[section] });
    } else if (!known[section](type)) {
      const note =
        section === 'eval.evaluators'
          ? 'a NAT Python evaluator; the served eval section is not used (start-up goes on)'
          : section === 'llms' || section === 'authentication'
            ? `a NAT ${section === 'llms' ? 'LLM client' : 'auth provider'} Interlude lacks`
            : `a NeMo Agent Toolkit Python component: ${VIA_MCP}`;
      lines.push({ path, type, support: 'not supported', note });
    } else if (touches(problems, path)) {
      lines.push({ path, type, support: 'invalid', note: 'see the errors below' });
    } else if (touches(warnings, path)) {
      const fields = warnings.filter((w) => w.startsWith(`${path}.`)).map((w) => w.slice(path.length + 1));
      lines.push({
        path,
        type,
        support: 'accepted with a warning',
        note: `see the warnings on ${fields.join(', ')}`,
      });
    } else {
      lines.push({ path, type, support: 'supported' });
    }
  };
  for (const section of [...Object.keys(known), ...Object.keys(UNUSED_SECTIONS)]) {
    if (section === 'workflow') {
      if (isMapping(file.workflow)) add(section, 'workflow', file.workflow);
      continue;
    }
    const entries = section
      .split('.')
      .reduce<unknown>((node, key) => (isMapping(node) ? node[key] : undefined), file);
    if (!isMapping(entries)) continue;
    for (const [name, entry] of Object.entries(entries)) add(section, `${section}.${name}`, entry);
  }
  return lines;
}

/** The report as `interlude validate` prints it: one line per component. */
export function formatReport(lines: ComponentLine[]): string {
  return lines
    .map((l) => `  ${l.support.padEnd(23)}  ${l.path} (${l.type})${l.note ? `: ${l.note}` : ''}\n`)
    .join('');
}

/** The file's mapping as NAT reads it (`base:` merged), for the report; undefined when it cannot be read. */
export function readPlain(file: string): unknown {
  try {
    return withBase(parse(readFileSync(file, 'utf8')) ?? {}, file);
  } catch {
    return undefined;
  }
}
