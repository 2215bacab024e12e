import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** NAT's deep merge: mappings merge key by key, anything else (lists too) is replaced. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(over)) {
    merged[key] = isMapping(merged[key]) && isMapping(value) ? deepMerge(merged[key], value) : value;
  }
  return merged;
}

/**
 * NeMo Agent Toolkit's `base:` inheritance: the file named (relative to the one naming it) is loaded
 * first, bases of bases too, and this file's mapping is merged over it. Throws a message naming the
 * file on a missing or unreadable base or a cycle.
 */
export function withBase(plain: unknown, file: string, visited: string[] = []): unknown {
  if (!isMapping(plain) || !Object.hasOwn(plain, 'base')) return plain;
  const { base, ...rest } = plain;
  if (typeof base !== 'string') throw new Error('base: must be the path of a YAML file');
  const path = isAbsolute(base) ? base : resolve(dirname(file), base);
  const chain = [...visited, resolve(file)];
  if (chain.includes(path)) throw new Error(`base: ${path} is already in the inheritance chain (a cycle)`);
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`base: cannot load ${path}: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  const inherited = withBase(parsed ?? {}, path, chain);
  if (!isMapping(inherited)) throw new Error(`base: ${path} is not a mapping`);
  return deepMerge(inherited, rest);
}
