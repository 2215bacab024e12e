import { GROUP_SEPARATOR } from '../runtime/function-type';
import type { Loc } from './config.loader';

type Entries = Record<string, unknown>;

interface ConfiguredName {
  /** The tool's name on its server. */
  tool: string;
  /** What the group calls it. */
  short: string;
  aliased: boolean;
  loc: Loc;
}

const isMapping = (v: unknown): v is Entries => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The tool names a group's config itself gives (`tool_overrides` and `include` of an MCP client), each
 * with where it is set: an alias, or a tool's own name when it is listed without one.
 */
function configuredToolNames(group: Entries): ConfiguredName[] {
  const names: ConfiguredName[] = [];
  const overrides = isMapping(group.tool_overrides) ? group.tool_overrides : {};
  for (const [tool, override] of Object.entries(overrides)) {
    const alias = isMapping(override) && typeof override.alias === 'string' ? override.alias : undefined;
    names.push({
      tool,
      short: alias ?? tool,
      aliased: !!alias,
      loc: ['tool_overrides', tool, ...(alias ? ['alias'] : [])],
    });
  }
  const include = Array.isArray(group.include) ? group.include : [];
  include.forEach((tool, i) => {
    if (typeof tool === 'string' && !Object.hasOwn(overrides, tool))
      names.push({ tool, short: tool, aliased: false, loc: ['include', i] });
  });
  return names;
}

/**
 * Names the config gives twice to tools an agent may call: a function and a function group of the same
 * name (`tool_names` would take the function and never the group), a function named like a tool its
 * group's config names (`<group>__<alias>`), two tools of one group given one name. An agent could
 * not tell them apart, so the file is refused rather than one of them silently winning.
 */
export function toolNameClashes(entriesOf: (section: string) => Entries): { loc: Loc; message: string }[] {
  const functions = Object.keys(entriesOf('functions'));
  const groups = entriesOf('function_groups');
  const found: { loc: Loc; message: string }[] = [];
  for (const name of functions) {
    if (Object.hasOwn(groups, name)) {
      found.push({
        loc: ['functions', name],
        message: `"${name}" is also the name of function_groups.${name}: an agent's tool_names would take the function and never the group; rename one`,
      });
    }
  }
  for (const [group, entry] of Object.entries(groups)) {
    if (!isMapping(entry)) continue;
    const seen = new Map<string, ConfiguredName>();
    for (const named of configuredToolNames(entry)) {
      const { short, loc } = named;
      const full = `${group}${GROUP_SEPARATOR}${short}`;
      const where = `function_groups.${group}.${loc.join('.')}`;
      if (functions.includes(full)) {
        found.push({
          loc: ['functions', full],
          message: `"${full}" is also the name ${where} gives a tool of that group; rename one`,
        });
      }
      const first = seen.get(short);
      // One tool listed twice, or one alias given twice, is reported by the group's own checks.
      if (first && first.tool !== named.tool && !(first.aliased && named.aliased)) {
        found.push({
          loc: ['function_groups', group, ...loc],
          message: `the group would offer two tools as "${full}": ${named.tool} and ${first.tool}; rename one`,
        });
      } else if (!first) seen.set(short, named);
    }
  }
  return found;
}
