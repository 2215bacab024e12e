import { getMetadataStorage } from 'class-validator';

type Lookup = (
  target: object,
  schema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => unknown[];

let installed = false;

/**
 * class-validator looks up a class's validation rules by filtering every registered rule, on every
 * validation. Rules are fixed once classes are defined (decorators run at definition, before anything
 * is validated), so the lookup is memoized per class. Lookups with groups (unused here) are not cached.
 */
export function cacheValidationMetadata(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage() as unknown as { getTargetValidationMetadatas: Lookup };
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const cache = new WeakMap<object, Map<string, unknown[]>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups && groups.length > 0) return lookup(target, schema, always, strictGroups, groups);
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    const key = `${schema}\u0000${always}\u0000${strictGroups}`;
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
}
