import { validatePlain } from '../core/validation/validation-issues';
import type { BuildContext, BuiltFunctionGroup } from '../runtime/function-type';
import type { FunctionRegistry } from '../runtime/function-registry';
import { takeNatFields } from '../runtime/nat-fields';
import { unknownTypeMessage } from './nat-types';
import type { AppConfig, Loc } from './config.loader';

/** A `function_groups:` entry, validated and built but not connected (see `connectGroups`). */
export function buildGroup(
  loc: Loc,
  component: unknown,
  registry: FunctionRegistry,
  context: BuildContext,
  found: { loc: Loc; message: string }[],
  ignored: { loc: Loc; message: string }[],
): BuiltFunctionGroup | undefined {
  const typeName = (component as { _type?: unknown } | null)?._type;
  if (component === null || typeof component !== 'object' || typeof typeName !== 'string') {
    found.push({ loc, message: 'must be a mapping with a _type' });
    return undefined;
  }
  const type = registry.getGroup(typeName);
  if (!type) {
    found.push({
      loc: [...loc, '_type'],
      message: unknownTypeMessage(
        'function_groups',
        typeName,
        registry.knownGroups(),
        registry.get(typeName) ? 'functions' : undefined,
      ),
    });
    return undefined;
  }
  const { settings, notes } = takeNatFields(component as Record<string, unknown>, type.natFields);
  for (const n of notes) ignored.push({ loc: [...loc, ...n.loc], message: n.message });
  const checked = validatePlain(type.config, settings, loc, { forbidUnknown: true });
  if (!checked.ok) {
    found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
    return undefined;
  }
  const problems = type.check?.(checked.value) ?? [];
  let unbuilt = false;
  for (const ref of type.references?.(checked.value) ?? []) {
    const provider = context.authProvider(ref.name);
    if (!provider) problems.push({ loc: ref.loc, message: `no entry "${ref.name}" in authentication` });
    else if (ref.types && !ref.types.includes(provider.type))
      problems.push({
        loc: ref.loc,
        message: `"${ref.name}" is ${provider.type}; ${type.type} takes ${ref.types.join(' or ')}`,
      });
    // Its own problems are reported under authentication:.
    else unbuilt ||= provider.config === undefined;
  }
  for (const p of problems) found.push({ loc: [...loc, ...p.loc], message: p.message });
  return problems.length || unbuilt ? undefined : type.build(checked.value, context);
}

/**
 * Connects every function group (an MCP client lists its server's tools), all at once; rejects with
 * every failure, each naming its group and server. A server that never answers fails after its timeout.
 * A group that connects at its first use (`per_user_mcp_client`) is left for then.
 */
export async function connectGroups(config: AppConfig): Promise<void> {
  const atStart = [...config.groups.values()].filter((g) => !g.connectsOnFirstUse);
  const results = await Promise.allSettled(atStart.map((g) => g.connect()));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (failures.length) throw new Error(failures.join('; '));
}
